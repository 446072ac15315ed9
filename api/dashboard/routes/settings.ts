import { Elysia } from "elysia";
import { deactivateAgentPolicy, listAgentPolicies, putAgentPolicy } from "../../../db/agentPolicies.ts";
import { findUnknownAgents, setUnknownAgents } from "../../../db/agentSettings.ts";
import { recordAudit } from "../../../db/dashboardAudit.ts";
import { findMerchant, setSettlementCurrency } from "../../../db/merchants.ts";
import { listReturnOrigins, replaceReturnOrigins } from "../../../db/returnOrigins.ts";
import { mayChange } from "../../../domain/dashboardRole.ts";
import { AppError, NotFoundError, ServiceUnavailableError, ValidationError } from "../../../domain/errors.ts";
import type { ApiDeps } from "../../deps.ts";
import { parseAgentId } from "../../requests/agentId.ts";
import { parseAgentPolicyInput } from "../../services/agentPolicies.ts";
import { checkSettlementCurrency } from "../../services/checkSettlementCurrency.ts";
import { parseReturnOrigins } from "../../services/returnOrigins.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { settingsPage } from "../pages/settingsPage.ts";
import { htmlPage, seeOther } from "../respond.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};
const listOrNull = (text: string) => (text.trim() === "" ? null : text.split(",").map((s) => s.trim()).filter(Boolean));

/**
 * Settings of the mode shown, with the same checks as their key + secret routes: return
 * origins (`parseReturnOrigins`), whether agents without a policy are refused, and agent
 * policies (`parseAgentPolicyInput`); and the account's settlement currency, with the operator
 * CLI's check (`checkSettlementCurrency`). Each change is audited.
 */
export const dashboardSettingsRoutes = (deps: ApiDeps, assets: string) => {
  const { config, db } = deps;

  async function render(dash: DashboardContext, options: { status?: number; problem?: string; notice?: string } = {}) {
    const [merchant, returnOrigins, unknownAgents, policies] = await Promise.all([
      findMerchant(db, dash.merchantId),
      listReturnOrigins(db, dash.merchantId, dash.mode),
      findUnknownAgents(db, dash.merchantId, dash.mode),
      listAgentPolicies(db, dash.merchantId, dash.mode),
    ]);
    const view = { settlementCurrency: merchant?.settlementCurrency ?? "USD", returnOrigins, unknownAgents, policies, canChange: mayChange(dash.user.role), ...options };
    return htmlPage(settingsPage(dash.page, view), { status: options.status ?? 200 });
  }

  /** Runs a change; a typed error (bad input) is shown on the page with its status, nothing changed. */
  async function change(dash: DashboardContext, action: string, run: () => Promise<Record<string, unknown>>) {
    try {
      const details = await run();
      await recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action, details: { mode: dash.mode, ...details }, ip: dash.ip, userAgent: dash.userAgent });
      return seeOther("/dashboard/settings?done=1");
    } catch (error) {
      if (error instanceof AppError) return render(dash, { status: error.status, problem: `${error.message} Nothing changed.` });
      throw error;
    }
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/settings", ({ dash, query }) => render(dash, { notice: query.done ? "Saved." : undefined }), { dashboard: "read" })
    .post(
      "/settings/currency",
      ({ dash, body }) =>
        change(dash, "settings.settlement_currency", async () => {
          const checked = await checkSettlementCurrency(config, field(body, "settlementCurrency"));
          if ("unreadable" in checked) throw new ServiceUnavailableError(`settlementCurrency: ${checked.unreadable}; try again shortly.`);
          if ("refused" in checked) throw new ValidationError("settlementCurrency", `settlementCurrency: ${checked.refused}.`);
          const from = (await findMerchant(db, dash.merchantId))?.settlementCurrency ?? "USD";
          await setSettlementCurrency(db, dash.merchantId, checked.currency);
          return { from, to: checked.currency };
        }),
      { dashboard: "write" },
    )
    .post(
      "/settings/return-origins",
      ({ dash, body }) =>
        change(dash, "settings.return_origins", async () => {
          const origins = parseReturnOrigins(field(body, "origins").split(/\r?\n/).map((o) => o.trim()).filter(Boolean));
          await replaceReturnOrigins(db, dash.merchantId, dash.mode, origins);
          return { origins };
        }),
      { dashboard: "write" },
    )
    .post(
      "/settings/unknown-agents",
      ({ dash, body }) =>
        change(dash, "settings.unknown_agents", async () => {
          const value = field(body, "unknownAgents");
          if (value !== "allow" && value !== "deny") throw new ValidationError("unknownAgents", "unknownAgents: allow or deny.");
          await setUnknownAgents(db, dash.merchantId, dash.mode, value);
          return { unknownAgents: value };
        }),
      { dashboard: "write" },
    )
    .post(
      "/settings/agents",
      ({ dash, body }) =>
        change(dash, "agent_policy.set", async () => {
          const agentId = parseAgentId("agentId", field(body, "agentId"));
          const text = (name: string) => field(body, name).trim() || null;
          const values = parseAgentPolicyInput(config, dash.mode, {
            maxPerPayment: text("maxPerPayment"),
            dailyLimit: text("dailyLimit"),
            allowedNetworks: listOrNull(field(body, "allowedNetworks")),
            allowedTokens: listOrNull(field(body, "allowedTokens")),
            expiresAt: text("expiresAt"),
          });
          await putAgentPolicy(db, dash.merchantId, dash.mode, agentId, values);
          return { agentId };
        }),
      { dashboard: "write" },
    )
    .post(
      "/settings/agents/deactivate",
      ({ dash, body }) =>
        change(dash, "agent_policy.deactivated", async () => {
          const agentId = parseAgentId("agentId", field(body, "agentId"));
          if (!(await deactivateAgentPolicy(db, dash.merchantId, dash.mode, agentId))) throw new NotFoundError(`No policy for agent ${agentId} in ${dash.mode} mode.`);
          return { agentId };
        }),
      { dashboard: "write" },
    );
};
