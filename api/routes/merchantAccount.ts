import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { listMerchantPayments } from "../services/listPayments.ts";
import { merchantStats } from "../services/merchantStats.ts";
import { queryOf } from "../services/queryParams.ts";

// Every value arrives as text and is validated in the service, so a 400 always names the parameter.
const text = (description: string) => t.Optional(t.Unknown({ description }));

/**
 * Account-wide reads: API key + secret (always live data, spec rule 3); a public key
 * alone still works on its own mode and the answer carries `Deprecation: true` (rule 4),
 * unless the operator turned that off (PUBLIC_KEY_ACCOUNT_READS=off: 401, as rule 5 says).
 */
export const merchantAccountRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/payments/merchant", tags: ["Merchant account"] })
    .use(authPlugin(deps.credentials, { publicKeyAccountReads: deps.config.auth.publicKeyAccountReads }))
    .get("/list", ({ auth, request }) => listMerchantPayments(deps, auth, queryOf(request)), {
      auth: "account",
      query: t.Object(
        {
          limit: text("Page size, 1–100 (default 20)"),
          startingAfter: text("Payment id: the page of older payments after it"),
          endingBefore: text("Payment id: the page of newer payments before it"),
          status: text("A status, or a comma-separated list"),
          network: text("Network shortName"),
          from: text("Created on or after (ISO date or date-time)"),
          to: text("Created on or before (ISO date: the whole day, or date-time)"),
          orderId: text("Exact orderId"),
        },
        { additionalProperties: true },
      ),
      detail: { summary: "The merchant's payments, newest first, cursor-paginated" },
    })
    .get("/stats", ({ auth, request }) => merchantStats(deps, auth, queryOf(request)), {
      auth: "account",
      query: t.Object(
        {
          startDate: text("ISO date (inclusive)"),
          endDate: text("ISO date (inclusive)"),
          statusFilter: text("One payment status"),
        },
        { additionalProperties: true },
      ),
      detail: { summary: "Account statistics: counts, completed total and average in the settlement currency" },
    });
