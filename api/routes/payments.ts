import { Elysia } from "elysia";
import { findPaymentStatuses } from "../../db/paymentStatuses.ts";
import { PaymentLookupError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { paymentStatusView, settlementView, withoutPrivateFields } from "../../domain/paymentView.ts";
import { presentPayment } from "../presenters/payment.ts";
import { answerCreation } from "../services/answerCreation.ts";
import { serviceHealth } from "../services/serviceHealth.ts";
import { createBatchedReads } from "../services/batchedReads.ts";
import { requirePayment } from "../services/requirePayment.ts";
import { anyPaymentIdParams, createPaymentBody, createPaymentHeaders, paymentIdParams, uuidPattern } from "../schemas.ts";
import type { Mode } from "../../domain/mode.ts";

export const paymentRoutes = (deps: ApiDeps) => {
  const { config, db } = deps;
  const networkOf = (chainId: string) => config.networks.find((n) => n.chainId === chainId);

  const statusReads = createBatchedReads((ids) => findPaymentStatuses(db, ids));

  /** Status reads (batched under load): the spec fixes 500 (not 404) for an id that does not exist for this account. */
  const statusRead = async (auth: { merchantId: string; mode: Mode }, paymentId: string | null) => {
    const payment = paymentId !== null && uuidPattern.test(paymentId) ? await statusReads.load(paymentId.toLowerCase()) : null;
    if (!payment || payment.merchantId !== auth.merchantId || payment.mode !== auth.mode) throw new PaymentLookupError(paymentId ?? "");
    return { success: true, payment: paymentStatusView(payment) };
  };

  return new Elysia({ prefix: "/payments", tags: ["Payments"] })
    .use(authPlugin(deps.credentials))
    .get(
      "/health",
      async ({ set }) => {
        set.headers["Cache-Control"] = "no-store";
        return serviceHealth(deps);
      },
      { detail: { summary: "Service status per chain: RPC reachable, head block, indexed block, lag, settlement contract" } },
    )
    .post(
      "/create",
      (request) => answerCreation(deps, request, { scope: "payments.create", kind: "payment" }),
      {
        auth: "public",
        body: createPaymentBody,
        headers: createPaymentHeaders,
        detail: { summary: "Create a payment (idempotent: Idempotency-Key header, else orderId, else the body)" },
      },
    )
    .get("/status/:paymentId", ({ auth, params }) => statusRead(auth, params.paymentId), {
      auth: "public",
      params: anyPaymentIdParams,
      detail: { summary: "Whether the customer has paid (same handler as /payments/{paymentId}/status)" },
    })
    .get("/:paymentId/status", ({ auth, params }) => statusRead(auth, params.paymentId), {
      auth: "public",
      params: anyPaymentIdParams,
      detail: { summary: "Whether the customer has paid: live state, amount received, confirmations" },
    })
    .get(
      "/splitter-status/:paymentId",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        return { success: true, paymentSplitterStatus: settlementView(payment, networkOf(payment.chainId)) };
      },
      { auth: "public", params: paymentIdParams, detail: { summary: "Settlement progress of a payment" } },
    )
    .get(
      "/:paymentId",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        const view = presentPayment(payment, networkOf(payment.chainId), config.http.publicBaseUrl);
        return { success: true, payment: auth.scheme === "public_key" ? withoutPrivateFields(view) : view };
      },
      {
        auth: "public",
        params: paymentIdParams,
        detail: { summary: "The full payment record, with settlement progress (customerEmail, callbackUrl and metadata: key + secret only)" },
      },
    );
};
