import { PublicKey } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { withTimeout } from "../withTimeout.ts";
import { solanaConnection } from "./connection.ts";
import { watchOf } from "./watchedAccount.ts";

/**
 * What a deposit address's token account holds of the payment's mint, read from the
 * chain at `confirmed` (0 when the account does not exist, e.g. closed by its sweep).
 * A Solana Pay payment pays the merchant's own account: the service holds nothing for it.
 */
export async function balanceOf(network: Network, payment: PaymentRow, timeoutMs: number): Promise<bigint> {
  if (payment.kind !== "deposit" || !payment.receiveAddress) return 0n;
  const { credit } = watchOf(network, payment);
  const connection = solanaConnection(network, "confirmed", timeoutMs);
  const info = await withTimeout(connection.getParsedAccountInfo(new PublicKey(credit.account), "confirmed"), timeoutMs, `${network.shortName} token account`);
  const data = info.value?.data;
  if (!data || !("parsed" in data)) return 0n;
  return BigInt((data.parsed as { info?: { tokenAmount?: { amount?: string } } }).info?.tokenAmount?.amount ?? "0");
}
