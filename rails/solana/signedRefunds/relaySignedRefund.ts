import { getBase58Codec } from "@solana/kit";
import { Transaction, type Connection, type Keypair } from "@solana/web3.js";
import type { TransferOutRow } from "../../../db/schema/index.ts";
import { tokenAccountBalance } from "../tokenAccountBalance.ts";

export type RelayedRefund = { rawTx: string; txHash: string; blockhash: string; lastValidBlockHeight: bigint; sourceBalance: bigint };

/**
 * A merchant-signed refund with the operator's signature added as fee payer (the transaction
 * was checked to be exactly the prepared refund when it was handed in). `problem` when it
 * cannot be sent: its blockhash expired (it can never land), or the merchant's token account
 * holds less than the refund (it would fail, and the fee burn).
 */
export async function signRelayedRefund(connection: Connection, row: TransferOutRow, operator: Keypair): Promise<RelayedRefund | { problem: string }> {
  const transaction = Transaction.from(Buffer.from(row.merchantSigned!.transaction!, "base64"));
  const source = transaction.instructions[3]!.keys[0]!.pubkey;
  const [valid, held] = await Promise.all([connection.isBlockhashValid(transaction.recentBlockhash!, { commitment: "confirmed" }), tokenAccountBalance(connection, source, null)]);
  if (!valid.value) return { problem: "the merchant-signed refund expired before it was sent: nothing moved; sign a new one" };
  if (held < row.amount) return { problem: `the merchant's token account ${source.toBase58()} holds ${held}, less than ${row.amount}` };
  transaction.partialSign(operator);
  return {
    rawTx: transaction.serialize().toString("base64"),
    txHash: getBase58Codec().decode(transaction.signature!),
    blockhash: transaction.recentBlockhash!,
    lastValidBlockHeight: row.lastValidBlockHeight!,
    sourceBalance: held,
  };
}
