import { findPayment } from "../db/payments.ts";
import { movedOut, type TransferOutRow } from "../db/transfersOut.ts";
import { refundable } from "../domain/refundable.ts";
import { ingestFor, portsOf, type RailContext } from "../rails/index.ts";
import { evidenceHorizons, reconcilePayments } from "../reconcile/index.ts";
import { failTransferOut } from "./transferLedger.ts";

/**
 * Whether a requested refund must wait before it is signed, and why. It is sent only from
 * money the chain can no longer take back — every credit of the payment in a final block,
 * as a sweep waits for its completing block — only once what a closed payment received is
 * known (ingest read past the close), and only while it is still owed: an excess a
 * reorg removed would otherwise be paid back out of the merchant's amount (a refund the
 * merchant's wallet signed: up to what the payment received). A refund no
 * longer owed (its excess gone) is closed `failed`. Null: send it now.
 */
export async function refundWaits(ctx: RailContext, row: TransferOutRow): Promise<string | null> {
  if (row.status !== "requested" || row.kind !== "refund") return null;
  await reconcilePayments(ctx.db, ctx.config, [row.paymentId]);
  const payment = await findPayment(ctx.db, row.paymentId);
  if (!payment) return null;
  const { network, chain } = portsOf(ctx.config, payment);
  // An indexer reading again after a restart has dropped its unfinal rows: what it holds
  // now says nothing of what the stored answer counted.
  if ((await ingestFor(network)?.indexedHeads(ctx))?.rereading?.has(payment.chainId)) return "the indexer is reading the chain again after a restart";
  // The newest unfinal block reconcile counted, of every source: a submitted transaction
  // above the indexed head counts toward what is owed, and ingest's rows do not hold it.
  const newest = payment.evidenceBlock;
  if (newest !== null) {
    const finalized = await chain.finalEvidenceHead(ctx, network, 20_000);
    if (newest > finalized) return `block ${newest} is not final yet (final: ${finalized})`;
  }
  // A payment the merchant closed owes back what it received, as far as ingest has read:
  // money stamped before the close but not read yet (ingest lagging) would complete it
  // instead, and be the merchant's. Its refund waits until the chain is read past the close.
  if (payment.closedStatus && payment.closedAt) {
    const through = (await evidenceHorizons(ctx)).get(payment.chainId);
    if (through && through < payment.closedAt) {
      return `the chain is read through ${through.toISOString()}, not yet past the payment's close at ${payment.closedAt.toISOString()}`;
    }
  }
  const others = (await movedOut(ctx.db, payment.id)).refund - row.amount;
  // A merchant-signed refund returns what the merchant's wallet received: up to all of it.
  const owed = row.merchantSigned ? (payment.amountReceived > others ? payment.amountReceived - others : 0n) : refundable(payment, others);
  if (owed < row.amount) {
    const error = `no longer owed: the payment now owes the customer ${owed}, less than the ${row.amount} requested (a reorg removed part of what arrived)`;
    ctx.logger.error({ transfer: row.id, payment: payment.id, owed: owed.toString(), requested: row.amount.toString() }, "a requested refund is no longer owed; closing it unsent");
    await failTransferOut(ctx.db, row.id, "requested", { error });
    return error;
  }
  return null;
}
