/**
 * Reconciliation's one face: what a payment has received and what its state is,
 * computed from evidence by `domain/settle`, persisted with its events — also a bridge's
 * progress (evidence too), and the merchant closing a payment. `jobs/` and `api/` call
 * these; nothing else reaches into this folder.
 */
export { recordBridgeProgress, type RecordedBridgeProgress } from "./bridgeProgress.ts";
export { closePayment } from "./closePayment.ts";
export { INDEXED_CHANNEL, startDispatcher } from "./dispatch.ts";
export { evidenceHorizons } from "./evidenceHorizons.ts";
export { recordCreated, writePaymentCreation, writePaymentCreations } from "./paymentCreations.ts";
export { paymentPayers, type Payers } from "./paymentPayers.ts";
export { reconcilePayments, type Reconciled } from "./reconcilePayments.ts";
export { refreshEvidence, verifySubmission } from "./verifySubmission.ts";
export { watchIngest } from "./watchIngest.ts";
