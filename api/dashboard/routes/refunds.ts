import { Elysia } from "elysia";
import { recordAudit } from "../../../db/dashboardAudit.ts";
import { merchantRefundRequests } from "../../../db/refundRequests.ts";
import { mayChange } from "../../../domain/dashboardRole.ts";
import { NotFoundError } from "../../../domain/errors.ts";
import { uuidPattern } from "../../../domain/uuid.ts";
import { approveRefundRequest, rejectRefundRequest } from "../../../payouts/index.ts";
import type { ApiDeps } from "../../deps.ts";
import { requirePayment } from "../../services/requirePayment.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html } from "../html.ts";
import { page } from "../layout.ts";
import { awaitingRequestsTable } from "../pages/refundRequestForms.ts";
import { pageOrRefusal } from "../refusals.ts";
import { htmlPage, seeOther } from "../respond.ts";

/**
 * Refund requests awaiting the merchant's approval, and the decision. Approving runs the
 * very code the key + secret route runs (`payouts/approveRefundRequest`): the same checks,
 * the same cap, one refund however many clicks.
 */
export const dashboardRefundRoutes = (deps: ApiDeps, assets: string) => {
  const { db } = deps;

  async function decide(dash: DashboardContext, params: { paymentId: string; requestId: string }, decision: "approved" | "rejected") {
    if (!uuidPattern.test(params.paymentId) || !uuidPattern.test(params.requestId)) throw new NotFoundError("No such refund request.");
    const payment = await requirePayment(db, dash, params.paymentId);
    const details: Record<string, unknown> = { paymentId: payment.id, refundRequestId: params.requestId };
    if (decision === "approved") {
      const sent = await approveRefundRequest(deps, payment, params.requestId);
      details.transferId = sent.transfer.id;
    } else {
      await rejectRefundRequest(deps, payment, params.requestId);
    }
    await recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action: `refund_request.${decision}`, details, ip: dash.ip, userAgent: dash.userAgent });
    return seeOther(`/dashboard/payments/${payment.id}?done=${decision}`);
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get(
      "/refund-requests",
      async ({ dash }) => {
        const rows = await merchantRefundRequests(db, { merchantId: dash.merchantId, mode: dash.mode, status: "awaiting_approval", limit: 100 });
        const table = awaitingRequestsTable(
          rows.map((r) => ({ request: r.request, tokenSymbol: r.payment.tokenSymbol, tokenDecimals: r.payment.tokenDecimals })),
          { csrfToken: dash.page.csrfToken, canDecide: mayChange(dash.user.role), showPayment: true },
        );
        return htmlPage(
          page(dash.page, {
            title: "Refund requests",
            active: "refunds",
            body: html`<p>Refunds asked to an address other than the one that paid wait here for your decision (the latest 100, newest first).</p>${table}`,
          }),
        );
      },
      { dashboard: "read" },
    )
    .post("/payments/:paymentId/refund-requests/:requestId/approve", ({ dash, params }) => pageOrRefusal(assets, () => decide(dash, params, "approved")), { dashboard: "write" })
    .post("/payments/:paymentId/refund-requests/:requestId/reject", ({ dash, params }) => pageOrRefusal(assets, () => decide(dash, params, "rejected")), { dashboard: "write" });
};
