import type { Connection, PublicKey } from "@solana/web3.js";
import { ServiceUnavailableError } from "../../domain/errors.ts";

/**
 * What a token account holds (smallest units), read at `confirmed` from a node at `minSlot`
 * at least — the slot of the payment's last credit: a node lagging it (one of several behind
 * the URL) would answer a balance from before that credit, or "no such account", and a refund
 * or sweep would be closed as "holds less", or a refund would send less than is owed. Such a
 * node refuses the read (the caller retries). An account that does not exist there holds 0
 * (a deposit account closed by its sweep).
 */
export async function tokenAccountBalance(connection: Connection, account: PublicKey, minSlot: bigint | null): Promise<bigint> {
  const info = await connection.getParsedAccountInfo(account, { commitment: "confirmed", ...(minSlot === null ? {} : { minContextSlot: Number(minSlot) }) });
  if (!info.value) return 0n;
  const amount = "parsed" in info.value.data ? (info.value.data.parsed as { info?: { tokenAmount?: { amount?: unknown } } }).info?.tokenAmount?.amount : undefined;
  if (typeof amount !== "string" || !/^\d+$/.test(amount)) throw new ServiceUnavailableError(`the node did not read ${account.toBase58()} as a token account`);
  return BigInt(amount);
}
