import type { Connection } from "@solana/web3.js";
import type { Network } from "../../config/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "../solana/tokenAccounts.ts";
import { tokenBalanceDelta } from "../solana/tokenBalanceDelta.ts";
import type { SettlementTransfer } from "./chains.ts";

/** Where a signature stands on the cluster: confirmed (or failed there), seen but not confirmed, or unknown. */
export async function signatureState(connection: Connection, signature: string): Promise<"confirmed" | "failed" | "pending" | null> {
  const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
  const status = value[0];
  if (!status) return null;
  if (status.confirmationStatus !== "confirmed" && status.confirmationStatus !== "finalized") return "pending";
  return status.err === null ? "confirmed" : "failed";
}

/**
 * What the confirmed settlement paid the merchant: the rise of its settlement wallet's
 * associated token account for the mint, from the node's pre/post token balances (never the
 * instruction's amount: a Token-2022 fee makes them differ), with the fee the operator paid
 * (lamports). `unmined`: not confirmed yet; `reverted`: it failed, or paid the wallet nothing.
 */
export async function svmSettlementTransfer(
  connection: Connection,
  network: Network,
  row: X402SettlementRow,
  signature: string,
): Promise<SettlementTransfer | "unmined" | { reverted: true; gasCost: bigint }> {
  const transaction = await connection.getParsedTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 });
  if (!transaction) return "unmined";
  const gasCost = BigInt(transaction.meta?.fee ?? 0);
  const program = tokenProgramOf(tokenOfMint(network, row.asset));
  const account = associatedTokenAccount(row.payTo, row.asset, program).toBase58();
  const credit = tokenBalanceDelta(transaction, { account, mint: row.asset, tokenProgram: program.toBase58() });
  if (!credit || transaction.blockTime === null || transaction.blockTime === undefined) return { reverted: true, gasCost };
  return { txHash: signature, blockNumber: BigInt(transaction.slot), blockTimestamp: new Date(transaction.blockTime * 1000), logIndex: credit.accountIndex, gasCost, credited: credit.amount };
}
