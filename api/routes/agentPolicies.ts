import { Elysia, t } from "elysia";
import { deleteAgentPolicy, findAgentPolicy, putAgentPolicy } from "../../db/agentPolicies.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { parseAgentId, parseAgentPolicyInput, presentAgentPolicy } from "../services/agentPolicies.ts";

const agentParams = t.Object({ agentId: t.String({ description: "The agent's id, as sent in X-Agent-Id" }) });
const usdLimit = t.Optional(t.Union([t.String(), t.Number(), t.Null()], { description: 'USD decimal amount, e.g. "250.00"; null for no limit' }));

/** Spending policies for agents (programs creating payments with `X-Agent-Id`), per merchant and mode. */
export const agentPolicyRoutes = ({ config, db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/merchants/agent-policies", tags: ["Merchants"] })
    .use(authPlugin(credentials))
    .get(
      "/:agentId",
      async ({ auth, params }) => {
        const agentId = parseAgentId("agentId", params.agentId);
        const policy = await findAgentPolicy(db, auth.merchantId, auth.mode, agentId);
        return policy
          ? { success: true, policy: presentAgentPolicy(policy), message: `Policy for agent ${agentId}.` }
          : { success: true, policy: null, message: `No policy for agent ${agentId}: its payments are not limited.` };
      },
      { auth: "public", params: agentParams, detail: { summary: "Spending policy for an agent (policy null, 200, when there is none)" } },
    )
    .put(
      "/:agentId",
      async ({ auth, params, body, set }) => {
        const agentId = parseAgentId("agentId", params.agentId);
        const values = parseAgentPolicyInput(config, auth.mode, body);
        const { policy, created } = await putAgentPolicy(db, auth.merchantId, auth.mode, agentId, values);
        set.status = created ? 201 : 200;
        return { success: true, policy: presentAgentPolicy(policy), message: `Policy for agent ${agentId} ${created ? "created" : "replaced"}.` };
      },
      {
        auth: "public",
        params: agentParams,
        body: t.Object(
          {
            maxPerPayment: usdLimit,
            dailyLimit: usdLimit,
            allowedNetworks: t.Optional(t.Unknown({ description: "Network shortNames, or null for any" })),
            allowedTokens: t.Optional(t.Unknown({ description: "Token symbols, or null for any" })),
            expiresAt: t.Optional(t.Unknown({ description: "ISO 8601 date-time, or null for never" })),
            active: t.Optional(t.Unknown({ description: "Default true" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "Create or replace an agent's spending policy (limits in USD)" },
      },
    )
    .delete(
      "/:agentId",
      async ({ auth, params }) => {
        const agentId = parseAgentId("agentId", params.agentId);
        if (!(await deleteAgentPolicy(db, auth.merchantId, auth.mode, agentId))) throw new NotFoundError(`No policy for agent ${agentId}.`);
        return { success: true, message: `Policy for agent ${agentId} deleted.` };
      },
      { auth: "public", params: agentParams, detail: { summary: "Remove an agent's policy (404 for an unknown agent)" } },
    );
