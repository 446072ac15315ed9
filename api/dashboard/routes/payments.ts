import { Elysia } from "elysia";
import { listDashboardPayments, ownPaymentIds, type DashboardPaymentRow } from "../../../db/dashboardPayments.ts";
import { findMerchantPayment } from "../../../db/payments.ts";
import { paymentRecords } from "../../../db/paymentStory.ts";
import { mayChange } from "../../../domain/dashboardRole.ts";
import { NotFoundError, RateLimitedError, ValidationError } from "../../../domain/errors.ts";
import { uuidPattern } from "../../../domain/uuid.ts";
import type { ApiDeps } from "../../deps.ts";
import { dashboardGuard } from "../guard.ts";
import { parsePaymentQuery } from "../paymentFilters.ts";
import { openPaymentsChangeStream } from "../paymentsChangeStream.ts";
import { paymentsCsv } from "../paymentsCsv.ts";
import { paymentPage } from "../pages/paymentPage.ts";
import { paymentsPage } from "../pages/paymentsPage.ts";
import { pageOrRefusal } from "../refusals.ts";
import { htmlPage } from "../respond.ts";

const PAGE_SIZE = 25;
/** Change streams one session may hold open in one process (a few tabs): each follows up to PAGE_SIZE payments on the hub the checkout pages share. */
const STREAMS_PER_SESSION = 4;
/** The most rows one export holds; narrower filters export the rest. */
const CSV_MAX_ROWS = 10_000;
const CSV_BATCH = 1_000;

/** The payments list (filters, search, paging, CSV export, the stream of its open payments' changes) and a payment's page. */
export const dashboardPaymentRoutes = (deps: ApiDeps, assets: string) => {
  const { config, db } = deps;
  const streamsOf = new Map<string, number>();
  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get(
      "/payments",
      ({ dash, query }) =>
        pageOrRefusal(assets, async () => {
          const { echo, filters, after } = parsePaymentQuery(config, query);
          const { rows, hasMore } = await listDashboardPayments(db, dash, filters, after, PAGE_SIZE);
          return htmlPage(paymentsPage(dash.page, config, { echo, rows, hasMore, after }));
        }),
      { dashboard: "read" },
    )
    .get(
      "/payments/changes",
      ({ dash, query, request, server }) =>
        pageOrRefusal(assets, async () => {
          const ids = typeof query.ids === "string" && query.ids !== "" ? query.ids.split(",") : [];
          if (ids.length > PAGE_SIZE || !ids.every((id) => uuidPattern.test(id))) throw new ValidationError("ids", `ids: up to ${PAGE_SIZE} payment ids, comma-separated.`);
          // Only this account's payments of the mode shown are followed; others are as absent as unknown ids.
          const own = await ownPaymentIds(db, dash, [...new Set(ids.map((id) => id.toLowerCase()))]);
          // 204 tells EventSource to stop reconnecting: there is nothing to follow.
          if (own.length === 0) return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
          const session = dash.session.id;
          const held = streamsOf.get(session) ?? 0;
          if (held >= STREAMS_PER_SESSION) throw new RateLimitedError(`At most ${STREAMS_PER_SESSION} live payment lists at once per session: close a tab.`, 30);
          streamsOf.set(session, held + 1);
          let released = false;
          const release = () => {
            if (released) return;
            released = true;
            const left = (streamsOf.get(session) ?? 1) - 1;
            if (left > 0) streamsOf.set(session, left);
            else streamsOf.delete(session);
          };
          try {
            return await openPaymentsChangeStream(deps.paymentStreams, own, request, server, release);
          } catch (error) {
            release();
            throw error;
          }
        }),
      { dashboard: "watch" },
    )
    .get(
      "/payments.csv",
      ({ dash, query }) =>
        pageOrRefusal(assets, async () => {
          const { filters } = parsePaymentQuery(config, query);
          const rows: DashboardPaymentRow[] = [];
          let after: string | null = null;
          for (;;) {
            const batch = await listDashboardPayments(db, dash, filters, after, Math.min(CSV_BATCH, CSV_MAX_ROWS - rows.length));
            rows.push(...batch.rows);
            if (!batch.hasMore || rows.length >= CSV_MAX_ROWS) break;
            after = batch.rows.at(-1)!.id;
          }
          return new Response(paymentsCsv(config, rows), {
            headers: {
              "Content-Type": "text/csv; charset=utf-8",
              "Content-Disposition": `attachment; filename="payments-${dash.mode}-${new Date().toISOString().slice(0, 10)}.csv"`,
              "Cache-Control": "no-store",
              "X-Content-Type-Options": "nosniff",
            },
          });
        }),
      { dashboard: "read" },
    )
    .get(
      "/payments/:paymentId",
      ({ dash, params, query }) =>
        pageOrRefusal(assets, async () => {
          // Another account's (or mode's) payment is as absent as one that does not exist.
          const payment = uuidPattern.test(params.paymentId) ? await findMerchantPayment(db, dash.merchantId, dash.mode, params.paymentId) : undefined;
          if (!payment) throw new NotFoundError(`No payment ${params.paymentId} in this account's ${dash.mode} mode.`);
          const records = await paymentRecords(db, payment.id);
          const network = config.networks.find((n) => n.chainId === payment.chainId);
          const notices: Record<string, string> = {
            approved: "Refund approved: it is on its way.",
            rejected: "Refund request rejected.",
            cancelled: "Payment cancelled.",
            refunded: "Refund requested: it is on its way (or waits for nothing more than its transfer).",
          };
          const notice = typeof query.done === "string" ? notices[query.done] : undefined;
          return htmlPage(paymentPage(dash.page, { payment, network, records, canDecide: mayChange(dash.user.role), notice }));
        }),
      { dashboard: "read" },
    );
};
