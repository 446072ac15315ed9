import type { Address, Hex, PublicClient } from "viem";
import { findTransferOut, moveConfirmedTransfer, type TransferOutRow } from "../../../db/transfersOut.ts";
import type { Network } from "../../../config/types.ts";
import type { TransferContext } from "../../transferLedger.ts";
import { evmClient } from "../client.ts";
import { nullIfNotFound } from "../nullIfNotFound.ts";
import { minedReceipt, replaceTransaction } from "./executeTransferOut.ts";

/**
 * A confirmed sweep or refund, looked at again until its block is final: if a reorg
 * removed its transaction, the row goes back to `broadcast` (and the caller re-drives it:
 * the same signed bytes go out again); if the transaction now sits in another block,
 * the row says so.
 */
export async function recheckTransferOut(ctx: TransferContext, rowId: string): Promise<TransferOutRow> {
  const row = await findTransferOut(ctx.db, rowId);
  if (!row || row.status !== "confirmed" || !row.txHash) return row!;
  const network = ctx.config.networks.find((n) => n.chainId === row.chainId && n.enabled);
  if (!network) return row;
  const client = evmClient(network, 20_000);
  // Any of the row's transactions: one re-signed below while the row stayed confirmed may be the one mined.
  const receipt = await minedReceipt(client, row);
  const fields = { transfer: row.id, payment: row.paymentId, txHash: row.txHash };
  if (!receipt) {
    const reopened = await ctx.ledger.reopen(ctx.db, row.id, `transaction ${row.txHash} left the chain in a reorg; sending it again`);
    if (reopened === "reopened") ctx.logger.error(fields, "a confirmed sweep/refund was removed by a reorg; re-sending the same transaction");
    if (reopened === "blocked") {
      // Another transfer of the payment went out after this one, with a later nonce that can only
      // be mined once this one's is used: the row stays confirmed (one open transfer a payment)
      // and its transaction is driven from here until a receipt shows where it was mined.
      ctx.logger.error(fields, "a confirmed sweep/refund was removed by a reorg while another transfer of its payment is open; re-sending the same transaction");
      await driveRemoved(ctx, network, client, (await findTransferOut(ctx.db, row.id))!);
    }
  } else if (receipt.status !== "success") {
    // Mined again after the reorg, but reverted there: nothing moved, so the transfer is owed again.
    ctx.logger.error(fields, "a sweep/refund mined again after a reorg reverted; it is owed again");
    await ctx.ledger.fail(ctx.db, row.id, "confirmed", { blockNumber: receipt.blockNumber, error: `transaction ${receipt.transactionHash} reverted after a reorg` });
  } else if (receipt.blockNumber !== row.blockNumber || receipt.transactionHash.toLowerCase() !== row.txHash.toLowerCase()) {
    await moveConfirmedTransfer(ctx.db, row.id, { blockNumber: receipt.blockNumber, txHash: receipt.transactionHash });
  }
  return (await findTransferOut(ctx.db, row.id))!;
}

/**
 * The `broadcast` path's rules for a removed transaction whose row cannot reopen: the same
 * bytes go out again; if the node refuses them (their fee cap under today's base fee) or they
 * wait unmined past `transfers.replaceAfterMs`, the transaction is signed again with its nonce
 * at today's fees, since its nonce holds back the payment's open transfer and every later one on
 * the chain. A nonce used by none of the row's transactions (once every node has had time to
 * show a receipt) means nothing moved: the row fails and the transfer is owed again.
 */
async function driveRemoved(ctx: TransferContext, network: Network, client: PublicClient, row: TransferOutRow): Promise<void> {
  const fields = { transfer: row.id, payment: row.paymentId, txHash: row.txHash };
  const refused = await client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).then(
    () => null,
    (error: Error) => error,
  );
  if (Date.now() - row.updatedAt.getTime() < ctx.config.transfers.replaceAfterMs) {
    if (refused) ctx.logger.warn({ ...fields, err: refused }, "re-sending failed; the next recheck tries again");
    return;
  }
  if (row.nonce === null || !row.fromAddress) return;
  const used = await client.getTransactionCount({ address: row.fromAddress as Address, blockTag: "latest" });
  if (used > row.nonce) {
    if (await minedReceipt(client, row)) return; // mined meanwhile: the next recheck records where
    await ctx.ledger.fail(ctx.db, row.id, "confirmed", { error: "removed by a reorg; its nonce then used by another transaction, nothing moved" }, { txHash: row.txHash! });
    ctx.logger.error(fields, "a sweep/refund a reorg removed will not be mined (its nonce went to another transaction); it is owed again");
    return;
  }
  // Waiting in the pool, it is outbid (not while it already offers well over today's fees).
  const pending = await client.getTransaction({ hash: row.txHash as Hex }).catch(nullIfNotFound);
  ctx.logger.warn(fields, "a sweep/refund a reorg removed is still not mined; signing it again at today's fees");
  await replaceTransaction(ctx, network, client, row, pending ? "outbid" : "market");
}
