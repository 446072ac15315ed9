import { Elysia, t } from "elysia";
import { findMerchantRefundRequest, merchantRefundRequests, refundRequestsOf } from "../../db/refundRequests.ts";
import { ValidationError } from "../../domain/errors.ts";
import { refundRequestStatuses, type RefundRequestStatus } from "../../domain/refundRequestStatus.ts";
import { approveRefundRequest, refundRequestView, rejectRefundRequest } from "../../payouts/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentRefundRequestOutcome } from "../presenters/refundRequest.ts";
import { paymentIdParams, uuidPattern } from "../schemas.ts";
import { requirePayment } from "../services/requirePayment.ts";

const requestParams = t.Object({
  paymentId: t.String({ format: "uuid", description: "Payment id (uuid)" }),
  requestId: t.String({ format: "uuid", description: "Refund request id (uuid)" }),
});

/**
 * The merchant's refund requests (API key + secret only: the public key may sit in a
 * browser, and these decide where money goes): list them, approve one (its refund is sent
 * to its address, never more than is owed) or reject it.
 */
export const refundRequestRoutes = (deps: ApiDeps) => {
  const { config, db } = deps;
  const networkOf = (chainId: string) => config.networks.find((n) => n.chainId === chainId);
  const view = (request: Parameters<typeof refundRequestView>[0], payment: Parameters<typeof refundRequestView>[1]) => {
    const network = networkOf(payment.chainId);
    return refundRequestView(request, payment, { name: network?.name ?? payment.chainId, shortName: network?.shortName ?? payment.chainId });
  };

  return new Elysia({ tags: ["Refunds"] })
    .use(authPlugin(deps.credentials))
    .get(
      "/refund-requests",
      async ({ auth, query }) => {
        const limit = query.limit === undefined ? 20 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ValidationError("limit", "Invalid query parameter 'limit': an integer from 1 to 100");
        if (query.status !== undefined && !(refundRequestStatuses as readonly string[]).includes(query.status)) {
          throw new ValidationError("status", `Invalid query parameter 'status': one of ${refundRequestStatuses.join(", ")}`);
        }
        let before: Date | undefined;
        if (query.startingAfter !== undefined && query.startingAfter !== "") {
          const cursor = uuidPattern.test(query.startingAfter) ? await findMerchantRefundRequest(db, auth.merchantId, auth.mode, query.startingAfter) : undefined;
          if (!cursor) throw new ValidationError("startingAfter", "Invalid query parameter 'startingAfter': not a refund request id of this account");
          before = cursor.createdAt;
        }
        const rows = await merchantRefundRequests(db, { merchantId: auth.merchantId, mode: auth.mode, status: query.status as RefundRequestStatus | undefined, before, limit: limit + 1 });
        const page = rows.slice(0, limit);
        return {
          success: true,
          refundRequests: page.map((r) => view(r.request, r.payment)),
          hasMore: rows.length > limit,
          nextCursor: page.at(-1)?.request.id ?? null,
        };
      },
      {
        auth: "secret",
        query: t.Object(
          {
            status: t.Optional(t.String({ maxLength: 32, description: `Only requests in this status (${refundRequestStatuses.join(", ")})` })),
            limit: t.Optional(t.String({ maxLength: 4, description: "1 to 100, default 20" })),
            startingAfter: t.Optional(t.String({ maxLength: 100, description: "Refund request id: list the older ones after it" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "The account's refund requests, newest first (e.g. status=awaiting_approval)" },
      },
    )
    .get(
      "/payments/:paymentId/refund-requests",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        return { success: true, refundRequests: (await refundRequestsOf(db, payment.id)).map((r) => view(r, payment)) };
      },
      { auth: "secret", params: paymentIdParams, detail: { summary: "A payment's refund requests, oldest first" } },
    )
    .post(
      "/payments/:paymentId/refund-requests/:requestId/approve",
      async ({ auth, params, set }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        const sent = await approveRefundRequest(deps, payment, params.requestId);
        set.status = 202;
        const network = networkOf(payment.chainId)!;
        return presentRefundRequestOutcome(sent, payment, network);
      },
      { auth: "secret", params: requestParams, detail: { summary: "Approve a refund request awaiting approval: its refund is sent to its address (no more than it asked for, nor than is owed)" } },
    )
    .post(
      "/payments/:paymentId/refund-requests/:requestId/reject",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        return { success: true, refundRequest: view(await rejectRefundRequest(deps, payment, params.requestId), payment) };
      },
      { auth: "secret", params: requestParams, detail: { summary: "Reject a refund request awaiting approval: it never sends anything" } },
    );
};
