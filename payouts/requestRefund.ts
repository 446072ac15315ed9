import { findPayment } from "../db/payments.ts";
import type { RefundRequestRow } from "../db/refundRequests.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { movedOut, openTransferOut, type TransferOutRow } from "../db/transfersOut.ts";
import { parseAmount } from "../domain/amounts.ts";
import { NotFoundError, RefundRefusedError, RefundSignatureError, ValidationError } from "../domain/errors.ts";
import { paymentPayers, reconcilePayments } from "../reconcile/index.ts";
import { awaitApproval } from "./awaitApproval.ts";
import type { PayoutDeps } from "./deps.ts";
import { assertNotReverting, checkDestination, refundAddress, refundPorts } from "./refundChecks.ts";
import { refundDue } from "./refundDue.ts";
import { messageOf } from "./refundRequestView.ts";
import { routeRefund, type RefundRequester } from "./routeRefund.ts";
import { inProgress, sendRefund } from "./sendRefund.ts";

/** What a refund request may carry (every door takes the same body). */
export type RefundRequestBody = {
  /** Where to send it; absent: back to the address that paid. */
  address?: string;
  reason?: string;
  /** With `signature`: the amount (token units, a decimal) the signature covers. */
  amount?: string | number;
  /** A paying address's signature of the request's message (`refundMessage`) for `address` and `amount`. */
  signature?: string;
};

/** A request's outcome: sent (its transfer reserved, the refund job prompted) or awaiting the merchant's approval. */
export type RefundRequestOutcome = { refundRequest: RefundRequestRow; transfer: TransferOutRow | null };

/**
 * A request for the refund of what `payment` owes its customer (an overpayment, money that
 * arrived late, everything received by a payment that ended unpaid), from any door: the
 * checkout page's (no credentials), the public key's or the merchant's key + secret's. Where
 * it may go is `routeRefund`'s to say; how much, `refundDue`'s (never more than is owed).
 */
export async function requestRefund(deps: PayoutDeps, payment: PaymentRow, body: RefundRequestBody, requestedBy: RefundRequester): Promise<RefundRequestOutcome> {
  const ports = refundPorts(deps, payment);
  const { network, chain } = ports;
  const to = body.address === undefined ? null : refundAddress(ports, body.address);
  const reason = body.reason?.trim() || null;
  let signature: { text: string; amount: bigint } | null = null;
  if (body.signature !== undefined) {
    if (!to) throw new ValidationError("address", "Invalid field 'address': required with 'signature' (the address the signature sends the refund to)");
    if (body.amount === undefined) throw new ValidationError("amount", "Invalid field 'amount': required with 'signature' (the amount the signature covers)");
    signature = { text: body.signature.trim(), amount: parseAmount("amount", body.amount, payment.tokenDecimals) };
  }
  if (to) await checkDestination(deps, ports, payment, to);
  await assertNotReverting(deps, payment);

  // Up to date with the chain first: what is owed, and who paid, are computed from it.
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  const current = await findPayment(deps.db, payment.id);
  if (!current) throw new NotFoundError(`No payment with id ${payment.id}.`);
  // Whoever asks, nothing is recorded for a payment that owes nothing (or too little to send).
  const moved = await movedOut(deps.db, current.id);
  const due = refundDue({ payment: current, refunded: moved.refund, swept: moved.sweep, stillHeld: null, cap: null, minimum: deps.config.refunds.minimum });
  if ("refused" in due) throw new RefundRefusedError(due.refused.message, due.refused.code);
  if (await openTransferOut(deps.db, current.id)) throw inProgress();

  const payers = await paymentPayers(deps, current);
  let signed: { signer: string; amount: bigint } | null = null;
  if (signature && to) {
    const message = messageOf({ paymentId: current.id, toAddress: to, amount: signature.amount }, current, network);
    let signer: string | null = null;
    for (const payer of payers.byAddress.keys()) {
      if (await chain.verifySignedMessage(payer, message, signature.text)) {
        signer = payer;
        break;
      }
    }
    if (!signer) {
      throw new RefundSignatureError(
        "Invalid field 'signature': it is not a signature, by an address that paid this payment, of the refund message for this address and amount (see `message` in a request's answer).",
      );
    }
    signed = { signer, amount: signature.amount };
  }

  const route = routeRefund({ requestedBy, to, signed }, payers);
  if (route.action === "refuse") throw new RefundRefusedError(route.refusal.message, route.refusal.code);
  if (route.action === "await") {
    const { refundRequest } = await awaitApproval(deps, current, network, { to: route.to, requestedBy, reason });
    return { refundRequest, transfer: null };
  }
  // Back to the payer: its address is checked as a named one is.
  if (route.to !== to) await checkDestination(deps, ports, current, route.to);
  const sent = await sendRefund(deps, current, network, chain, {
    to: route.to,
    authorizedBy: route.authorizedBy,
    cap: route.cap,
    requestedBy,
    reason,
    ...(signed && signature ? { signed: { signature: signature.text, signer: signed.signer } } : {}),
  });
  return sent;
}
