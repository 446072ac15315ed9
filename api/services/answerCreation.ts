import type { ApiDeps } from "../deps.ts";
import type { AuthContext } from "../plugins/auth.ts";
import type { CreatePaymentBody } from "../requests/createPaymentRequest.ts";
import { createPayment, type CreatePaymentContext } from "./createPayment.ts";

type CreationRequest = {
  auth: AuthContext;
  body: CreatePaymentBody;
  headers: Record<string, string | undefined>;
  set: { status?: unknown; headers: Record<string, unknown> };
};

/**
 * What every creation route does: create once per idempotency key (the header, with
 * `X-Agent-Id` for agents) and answer with the stored status, a replay marked
 * `Idempotent-Replayed: true`.
 */
export async function answerCreation(deps: ApiDeps, request: CreationRequest, options: Pick<CreatePaymentContext, "scope" | "kind" | "fixedExpiresIn">) {
  const { auth, headers, set } = request;
  const result = await createPayment({ ...deps, auth, idempotencyKey: headers["idempotency-key"], agentId: headers["x-agent-id"], ...options }, request.body);
  set.status = result.status;
  if (result.replayed) set.headers["Idempotent-Replayed"] = "true";
  return result.body;
}
