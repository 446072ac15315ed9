import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { createPaymentBody, createPaymentHeaders } from "../schemas.ts";
import { answerCreation } from "../services/answerCreation.ts";
import { requireTestMode } from "../services/requireTestMode.ts";
import { simulatePayment } from "../services/simulatePayment.ts";

/** Test payments and their simulated outcomes; test keys only. */
export const sandboxRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/sandbox/payments", tags: ["Sandbox"] })
    .use(authPlugin(deps.credentials))
    .post(
      "",
      (request) => {
        requireTestMode(request.auth);
        return answerCreation(deps, request, { scope: "sandbox.payments.create", kind: "payment" });
      },
      {
        auth: "public",
        body: createPaymentBody,
        headers: createPaymentHeaders,
        detail: { summary: "Create a test payment (isTest: true), same body as /payments/create; test keys only" },
      },
    )
    .post("/:paymentId/simulate", ({ auth, params, body }) => simulatePayment(deps, auth, params.paymentId, body), {
      auth: "public",
      // No length limit: an id no test payment has is a 404 (the spec), however long; and after the key is checked.
      params: t.Object({ paymentId: t.String() }),
      // Any JSON (or none): a missing or misnamed `action` is a failure outcome, not a validation
      // error. Malformed JSON is still a 400 (t.Unknown keeps Elysia's parse check; t.Optional would not).
      body: t.Unknown({ description: '{action: "complete"} completes the payment; anything else fails it' }),
      detail: { summary: "Drive a pending test payment to completed (action complete) or failed (anything else); once" },
    });
