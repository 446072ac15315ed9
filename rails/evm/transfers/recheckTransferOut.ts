import type { Hex } from "viem";
import { findTransferOut, moveConfirmedTransfer, reopenTransferOut, type TransferOutRow } from "../../../db/transfersOut.ts";
import type { RailContext } from "../../types.ts";
import { evmClient } from "../client.ts";

/**
 * A confirmed sweep or refund, looked at again until its block is final: if a reorg
 * removed its transaction, the row goes back to `broadcast` (and the caller re-drives it:
 * the same signed bytes go out again); if the transaction now sits in another block,
 * the row says so.
 */
export async function recheckTransferOut(ctx: RailContext, rowId: string): Promise<TransferOutRow> {
  const row = await findTransferOut(ctx.db, rowId);
  if (!row || row.status !== "confirmed" || !row.txHash) return row!;
  const network = ctx.config.networks.find((n) => n.chainId === row.chainId && n.enabled);
  if (!network) return row;
  const receipt = await evmClient(network, 20_000).getTransactionReceipt({ hash: row.txHash as Hex }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError") return null;
    throw error;
  });
  if (!receipt) {
    if (await reopenTransferOut(ctx.db, row.id, `transaction ${row.txHash} left the chain in a reorg; sending it again`)) {
      ctx.logger.error({ transfer: row.id, payment: row.paymentId, txHash: row.txHash }, "a confirmed sweep/refund was removed by a reorg; re-sending the same transaction");
    }
  } else if (receipt.blockNumber !== row.blockNumber) {
    await moveConfirmedTransfer(ctx.db, row.id, receipt.blockNumber);
  }
  return (await findTransferOut(ctx.db, row.id))!;
}
