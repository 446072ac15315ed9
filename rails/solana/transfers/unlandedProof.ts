import type { Connection } from "@solana/web3.js";
import type { Network } from "../../../config/types.ts";
import type { PaymentRow, TransferOutRow } from "../../../db/schema/index.ts";
import { tokenAccountBalance } from "../tokenAccountBalance.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "../tokenAccounts.ts";

/**
 * Why a sweep or refund whose blockhash expired with none of its signatures found may still
 * have landed; null when it provably did not. "Not found" alone proves nothing: a node may
 * drop status answers or not keep the history, and a transfer of 50 out of 150 that landed
 * unseen leaves 100, enough to sign it again and send it twice. So the deposit token account
 * must hold exactly what it held when the transaction was signed (`sourceBalance`), read from
 * a node at `finalSlot` at least — the slot whose finalized height proved the blockhash
 * expired, so any landing is in a block that node has. Money arriving since also changes the
 * balance: the row then waits too, until a node reports its signatures (see docs/decisions/).
 */
export async function unlandedProof(connection: Connection, network: Network, payment: PaymentRow, row: TransferOutRow, finalSlot: number): Promise<string | null> {
  if (row.sourceBalance === null) return `transfer ${row.id} was signed before its deposit balance was recorded: only its signatures' statuses can tell`;
  if (!payment.receiveAddress) return `payment ${payment.id} has no deposit address`;
  const token = tokenOfMint(network, payment.tokenAddress);
  const source = associatedTokenAccount(payment.receiveAddress, token.address, tokenProgramOf(token));
  const held = await tokenAccountBalance(connection, source, BigInt(finalSlot));
  if (held === row.sourceBalance) return null;
  return `the deposit account holds ${held}, not the ${row.sourceBalance} it held when transfer ${row.id} was signed: it may have landed unseen`;
}
