import type { Hex } from "viem";
import { failTransferOut, findTransferOut, moveConfirmedTransfer, reopenTransferOut, type TransferOutRow } from "../../../db/transfersOut.ts";
import type { RailContext } from "../../types.ts";
import { evmClient } from "../client.ts";
import { nullIfNotFound } from "../nullIfNotFound.ts";

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
  const client = evmClient(network, 20_000);
  const receipt = await client.getTransactionReceipt({ hash: row.txHash as Hex }).catch(nullIfNotFound);
  const fields = { transfer: row.id, payment: row.paymentId, txHash: row.txHash };
  if (!receipt) {
    const reopened = await reopenTransferOut(ctx.db, row.id, `transaction ${row.txHash} left the chain in a reorg; sending it again`);
    if (reopened === "reopened") ctx.logger.error(fields, "a confirmed sweep/refund was removed by a reorg; re-sending the same transaction");
    if (reopened === "blocked") {
      // Another transfer of the payment went out after this one, with a later nonce that can only
      // be mined once this one's is used: the same bytes go out again, and the row stays as it is
      // until a receipt shows where (or whether) they were mined.
      ctx.logger.error(fields, "a confirmed sweep/refund was removed by a reorg while another transfer of its payment is open; re-sending the same transaction");
      await client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).catch((error: Error) => ctx.logger.warn({ ...fields, err: error }, "re-sending failed; the next recheck tries again"));
    }
  } else if (receipt.status !== "success") {
    // Mined again after the reorg, but reverted there: nothing moved, so the transfer is owed again.
    ctx.logger.error(fields, "a sweep/refund mined again after a reorg reverted; it is owed again");
    await failTransferOut(ctx.db, row.id, "confirmed", { blockNumber: receipt.blockNumber, error: `transaction ${row.txHash} reverted after a reorg` });
  } else if (receipt.blockNumber !== row.blockNumber) {
    await moveConfirmedTransfer(ctx.db, row.id, receipt.blockNumber);
  }
  return (await findTransferOut(ctx.db, row.id))!;
}
