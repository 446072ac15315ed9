import { Elysia, t } from "elysia";
import { deleteAgentPolicy, findAgentPolicy, putAgentPolicy } from "../../db/agentPolicies.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { agentIdOfPath, parseAgentPolicyInput, presentAgentPolicy } from "../services/agentPolicies.ts";

// Null: a path whose percent-escapes do not decode (no agent can have that id).
const agentParams = t.Object({ agentId: t.Union([t.String(), t.Null()], { description: "The agent's id, as sent in X-Agent-Id" }) });

/** Spending policies for agents (programs creating payments with `X-Agent-Id`), per merchant and mode. */
export const agentPolicyRoutes = ({ config, db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/merchants/agent-policies", tags: ["Merchants"] })
    .use(authPlugin(credentials))
    .get(
      "/:agentId",
      async ({ auth, params }) => {
        // An id no policy can be stored under has none: the spec's 200 with policy null, not a 400.
        const agentId = agentIdOfPath(params.agentId);
        const policy = agentId === null ? undefined : await findAgentPolicy(db, auth.merchantId, auth.mode, agentId);
        return policy
          ? { success: true, policy: presentAgentPolicy(policy), message: `Policy for agent ${agentId}.` }
          : { success: true, policy: null, message: `No policy for ${agentId === null ? "that agent" : `agent ${agentId}`}: its payments are not limited.` };
      },
      { auth: "public", params: agentParams, detail: { summary: "Spending policy for an agent (policy null, 200, when there is none)" } },
    )
    .put(
      "/:agentId",
      async ({ auth, params, body, set }) => {
        const agentId = agentIdOfPath(params.agentId);
        if (agentId === null) throw new ValidationError("agentId", "Invalid field 'agentId': 1 to 200 visible ASCII characters, no spaces");
        const values = parseAgentPolicyInput(config, auth.mode, body);
        const { policy, created } = await putAgentPolicy(db, auth.merchantId, auth.mode, agentId, values);
        set.status = created ? 201 : 200;
        return { success: true, policy: presentAgentPolicy(policy), message: `Policy for agent ${agentId} ${created ? "created" : "replaced"}.` };
      },
      {
        auth: "public",
        params: agentParams,
        // Checked whole by parseAgentPolicyInput: a t.Object schema would have Elysia turn a body of
        // `[]`, `5` or `true` into {} — a policy with every limit removed, answered 200.
        body: t.Unknown({
          description:
            'A JSON object: maxPerPayment and dailyLimit (USD decimal amounts, e.g. "250.00"; null for no limit), allowedNetworks and allowedTokens (shortNames / symbols, or null for any), expiresAt (ISO 8601, or null for never), active (default true). Omitted fields take their defaults; unknown fields are refused.',
        }),
        detail: { summary: "Create or replace an agent's spending policy (limits in USD)" },
      },
    )
    .delete(
      "/:agentId",
      async ({ auth, params }) => {
        const agentId = agentIdOfPath(params.agentId);
        if (agentId === null || !(await deleteAgentPolicy(db, auth.merchantId, auth.mode, agentId))) throw new NotFoundError(`No policy for agent ${agentId ?? "with that id"}.`);
        return { success: true, message: `Policy for agent ${agentId} deleted.` };
      },
      { auth: "public", params: agentParams, detail: { summary: "Remove an agent's policy (404 for an unknown agent)" } },
    );
