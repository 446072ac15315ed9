import type { Network } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { recordPaymentEvent } from "../db/paymentEvents.ts";
import { decideRefundRequest, insertRefundRequest, signatureUsed, supersedeRefundRequests, type RefundRequestRow } from "../db/refundRequests.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { movedOut, openTransferOut, type TransferOutRow } from "../db/transfersOut.ts";
import { RefundRefusedError } from "../domain/errors.ts";
import type { RefundAuthority } from "../domain/refundRequestStatus.ts";
import type { ChainPort } from "../rails/index.ts";
import type { PayoutDeps } from "./deps.ts";
import { fromChain } from "./refundChecks.ts";
import { refundDue, type RefundRefusal } from "./refundDue.ts";
import { refundRequestView } from "./refundRequestView.ts";
import { reserveTransferOut } from "./reserveTransfer.ts";
import type { RefundRequester } from "./routeRefund.ts";

/** A refund let out: to `to`, on whose word, for at most `cap`; `requestId`: the awaiting request it approves (else a new request is recorded as sent). */
export type RefundOrder = {
  to: string;
  authorizedBy: RefundAuthority;
  cap: bigint | null;
  requestedBy: RefundRequester;
  reason: string | null;
  signed?: { signature: string; signer: string };
  requestId?: string;
};

export type SentRefund = { refundRequest: RefundRequestRow; transfer: TransferOutRow };

export const inProgress = () =>
  new RefundRefusedError("A refund or sweep for this payment is already in progress; try again when it has finished.", "refund_in_progress");

/**
 * Reserves a refund under the payment's lock (`reserveTransferOut`: concurrent callers queue
 * and each sees what the one before reserved, so refunds never add up to more than is owed,
 * and one transfer at a time leaves the address) and, in the same transaction, records its
 * request as `sent`, closes the payment's other requests still awaiting approval as
 * superseded, and writes `refund.requested` for a new request. Then prompts the refund job.
 */
export async function sendRefund(deps: PayoutDeps, payment: PaymentRow, network: Network, chain: ChainPort, order: RefundOrder): Promise<SentRefund> {
  if (await openTransferOut(deps.db, payment.id)) throw inProgress();
  // What can be sent is what the address holds, less the sweep still due to the merchant.
  const before = await movedOut(deps.db, payment.id);
  const held = await fromChain(deps, network, payment, chain.balanceOf(network, payment, 20_000));
  let refused: RefundRefusal | null = null;
  let request: RefundRequestRow | undefined;
  const transfer = await reserveTransferOut(
    deps.db,
    payment.id,
    (current, moved) => {
      // Held now: the balance read, less what left the address since (a sweep or refund that ran meanwhile).
      const stillHeld = held - (moved.sweep - before.sweep) - (moved.refund - before.refund);
      const due = refundDue({ payment: current, refunded: moved.refund, swept: moved.sweep, stillHeld, cap: order.cap, minimum: deps.config.refunds.minimum });
      if ("refused" in due) {
        refused = due.refused;
        return null;
      }
      return { kind: "refund", chainId: current.chainId, tokenAddress: current.tokenAddress, toAddress: order.to, amount: due.amount, reason: order.reason };
    },
    async (tx, current, row) => {
      request = await recordSent(tx, current, network, order, row);
    },
  );
  if (!transfer || !request) {
    const refusal = refused as RefundRefusal | null;
    throw refusal ? new RefundRefusedError(refusal.message, refusal.code) : inProgress();
  }
  await deps.prompts.refund(transfer.id).catch((error: unknown) => deps.logger.warn({ err: error, transfer: transfer.id }, "could not enqueue refund; recheck will"));
  return { refundRequest: request, transfer };
}

/** The request behind a reserved refund, as `sent`: the approved one, or a new one (with its `refund.requested`); the payment's other awaiting requests are superseded. */
export async function recordSent(tx: Db, payment: PaymentRow, network: Network, order: RefundOrder, transfer: TransferOutRow): Promise<RefundRequestRow> {
  const sent = { status: "sent" as const, authorizedBy: order.authorizedBy, transferId: transfer.id };
  if (order.requestId) {
    const approved = await decideRefundRequest(tx, order.requestId, sent);
    if (!approved) throw closed();
    await supersedeRefundRequests(tx, payment.id, approved.id);
    return approved;
  }
  // Under the payment's lock: of two requests carrying one signature, the second finds it used.
  if (order.signed && (await signatureUsed(tx, payment.id, order.signed.signature))) {
    throw new RefundRefusedError("This signature already let a refund of this payment out; sign a new request.", "refund_signature_used");
  }
  const request = await insertRefundRequest(tx, {
    paymentId: payment.id,
    merchantId: payment.merchantId,
    mode: payment.mode,
    toAddress: order.to,
    amount: transfer.amount,
    reason: order.reason,
    requestedBy: order.requestedBy,
    ...sent,
    ...(order.signed ?? {}),
    decidedAt: new Date(),
  });
  await recordPaymentEvent(tx, payment, "refund.requested", { refundRequest: refundRequestView(request, payment, network) });
  await supersedeRefundRequests(tx, payment.id, request.id);
  return request;
}

export const closed = (status?: string) =>
  new RefundRefusedError(`This refund request is no longer awaiting approval${status ? ` (it is ${status})` : ""}.`, "refund_request_closed");
