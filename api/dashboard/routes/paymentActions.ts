import { Elysia } from "elysia";
import { recordAudit } from "../../../db/dashboardAudit.ts";
import { formatAmount } from "../../../domain/amounts.ts";
import { NotFoundError } from "../../../domain/errors.ts";
import { uuidPattern } from "../../../domain/uuid.ts";
import { requestRefund } from "../../../payouts/index.ts";
import type { ApiDeps } from "../../deps.ts";
import { failPayment } from "../../services/failPayment.ts";
import { requirePayment } from "../../services/requirePayment.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { credentialsMatch } from "../passwords.ts";
import { pageOrRefusal, refusalPage } from "../refusals.ts";
import { seeOther } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

/**
 * A payment's actions as the merchant (what key + secret may do): cancel a pending payment
 * (`failPayment`), and refund what it owes the customer (`payouts/requestRefund`, the
 * merchant's authority: to the paying address by default, or any address given). A refund
 * moves money, so it asks for the password again (and the TOTP code when on). Both are audited.
 */
export const dashboardPaymentActionRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { db } = deps;
  const paymentOf = (dash: DashboardContext, id: string) => {
    if (!uuidPattern.test(id)) throw new NotFoundError(`No payment ${id}.`);
    return requirePayment(db, dash, id);
  };
  const audit = (dash: DashboardContext, action: string, details: Record<string, unknown>) =>
    recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action, details, ip: dash.ip, userAgent: dash.userAgent });

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .post(
      "/payments/:paymentId/cancel",
      ({ dash, params, body }) =>
        pageOrRefusal(assets, async () => {
          const payment = await paymentOf(dash, params.paymentId);
          const reason = field(body, "reason").trim().slice(0, 500) || undefined;
          await failPayment(deps, { merchantId: dash.merchantId, mode: dash.mode, scheme: "api_key" }, { paymentId: payment.id, status: "cancelled", reason });
          await audit(dash, "payment.cancelled", { paymentId: payment.id, reason: reason ?? null });
          return seeOther(`/dashboard/payments/${payment.id}?done=cancelled`);
        }),
      { dashboard: "write" },
    )
    .post(
      "/payments/:paymentId/refund",
      ({ dash, params, body }) =>
        pageOrRefusal(assets, async () => {
          const payment = await paymentOf(dash, params.paymentId);
          const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
          if (lockedFor > 0) return refusalPage(assets, 429, `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).`, { "Retry-After": String(lockedFor) });
          if (!(await credentialsMatch(db, dash.user, field(body, "password"), field(body, "totp")))) {
            await throttle.failed(dash.user.email, dash.ip);
            return refusalPage(assets, 403, "password: that is not your password (or the authentication code is wrong). Nothing was refunded.");
          }
          const address = field(body, "address").trim();
          const reason = field(body, "reason").trim().slice(0, 500);
          const outcome = await requestRefund(deps, payment, { ...(address ? { address } : {}), ...(reason ? { reason } : {}) }, "merchant");
          await audit(dash, "payment.refunded", {
            paymentId: payment.id,
            to: outcome.refundRequest.toAddress,
            amount: formatAmount(outcome.refundRequest.amount, payment.tokenDecimals),
            transferId: outcome.transfer?.id ?? null,
          });
          return seeOther(`/dashboard/payments/${payment.id}?done=refunded`);
        }),
      { dashboard: "write" },
    );
};
