import { Elysia } from "elysia";
import { findPayment } from "../../db/payments.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { requestRefund } from "../../payouts/index.ts";
import { portsOf } from "../../rails/index.ts";
import { presentRefundRequestOutcome } from "../presenters/refundRequest.ts";
import { paymentIdParams, refundRequestBody } from "../schemas.ts";
import { openPaymentEventStream } from "../services/paymentEventStream.ts";
import { loadPublicView } from "../services/publicPaymentViews.ts";

/**
 * What a checkout page in the customer's browser reaches with no credentials: the
 * payment's checkout view, a stream of it, and a refund request for what the payment
 * owes the customer. The payment id (a random uuid) is the only key, as a hosted
 * checkout link is: a stranger may hold it, so a refund goes only back to the address
 * that paid, or where a paying address signed for, and any other address waits for the
 * merchant (`payouts/`).
 */
export const publicPaymentRoutes = (deps: ApiDeps) => {
  const { db } = deps;
  return new Elysia({ prefix: "/payments/public", tags: ["Checkout"] })
    .get(
      "/:paymentId",
      async ({ params, set }) => {
        const payment = await loadPublicView(deps, params.paymentId);
        if (!payment) throw new NotFoundError(`No payment with id ${params.paymentId}.`);
        set.headers["Cache-Control"] = "no-store";
        return { success: true, payment };
      },
      { params: paymentIdParams, detail: { summary: "What a checkout page needs (no credentials, no merchant data)" } },
    )
    .get("/:paymentId/events", ({ params, request, server }) => openPaymentEventStream(deps.paymentStreams, params.paymentId, request, server), {
      params: paymentIdParams,
      detail: {
        summary: "Server-Sent Events: the checkout view now and each time it changes (event `payment`); heartbeats every 15 s",
      },
    })
    .post(
      "/:paymentId/refund-request",
      async ({ params, body, set }) => {
        const payment = await findPayment(db, params.paymentId);
        if (!payment) throw new NotFoundError(`No payment with id ${params.paymentId}.`);
        const outcome = await requestRefund(deps, payment, body, "customer");
        set.status = 202;
        return presentRefundRequestOutcome(outcome, payment, portsOf(deps.config, payment).network);
      },
      {
        params: paymentIdParams,
        body: refundRequestBody,
        detail: {
          summary:
            "The customer's refund of what the payment owes them (no credentials: the payment id is the key): back to the address that paid, or to another address once the merchant approves it or a paying address signs it",
        },
      },
    );
};
