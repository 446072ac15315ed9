import { Elysia, t } from "elysia";
import { deactivateAgentPolicy, deleteAgentPolicy, findAgentPolicy, putAgentPolicy } from "../../db/agentPolicies.ts";
import { findUnknownAgents } from "../../db/agentSettings.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { agentIdOfPath } from "../requests/agentId.ts";
import { parseAgentPolicyInput, presentAgentPolicy } from "../services/agentPolicies.ts";

// Null: a path whose percent-escapes do not decode (no agent can have that id).
const agentParams = t.Object({ agentId: t.Union([t.String(), t.Null()], { description: "The agent's id, as sent in X-Agent-Id" }) });

/**
 * Spending policies for agents (programs creating payments with `X-Agent-Id`), per merchant
 * and mode. Reading takes the public key; changing a policy takes key + secret, except that
 * a public key may still DELETE (the spec) — which only ever restricts: it deactivates the
 * policy (the agent is refused), and only key + secret removes it (docs/decisions/public-key.md).
 */
export const agentPolicyRoutes = ({ config, db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/merchants/agent-policies", tags: ["Merchants"] })
    .use(authPlugin(credentials))
    .get(
      "/:agentId",
      async ({ auth, params }) => {
        // An id no policy can be stored under has none: the spec's 200 with policy null, not a 400.
        const agentId = agentIdOfPath(params.agentId);
        const policy = agentId === null ? undefined : await findAgentPolicy(db, auth.merchantId, auth.mode, agentId);
        if (policy) return { success: true, policy: presentAgentPolicy(policy), message: `Policy for agent ${agentId}.` };
        const refused = (await findUnknownAgents(db, auth.merchantId, auth.mode)) === "deny";
        const who = agentId === null ? "that agent" : `agent ${agentId}`;
        return { success: true, policy: null, message: `No policy for ${who}: ${refused ? "its payments are refused (unknownAgents: deny)" : "its payments are not limited"}.` };
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
        // A public key sits in browsers: with it anyone could lift an agent's limits.
        auth: "secret",
        params: agentParams,
        // Checked whole by parseAgentPolicyInput: a t.Object schema would have Elysia turn a body of
        // `[]`, `5` or `true` into {} — a policy with every limit removed, answered 200.
        body: t.Unknown({
          description:
            'A JSON object: maxPerPayment and dailyLimit (USD decimal amounts, e.g. "250.00"; null for no limit), allowedNetworks and allowedTokens (shortNames / symbols, or null for any), expiresAt (ISO 8601, or null for never), active (default true). Omitted fields take their defaults; unknown fields are refused.',
        }),
        detail: { summary: "Create or replace an agent's spending policy (limits in USD; API key + secret)" },
      },
    )
    .delete(
      "/:agentId",
      async ({ auth, params }) => {
        const agentId = agentIdOfPath(params.agentId);
        const missing = () => new NotFoundError(`No policy for agent ${agentId ?? "with that id"}.`);
        if (agentId === null) throw missing();
        if (auth.scheme === "public_key") {
          // Removing a policy frees an agent (under unknownAgents: allow): never the public key's to do.
          const policy = await deactivateAgentPolicy(db, auth.merchantId, auth.mode, agentId);
          if (!policy) throw missing();
          return {
            success: true,
            policy: presentAgentPolicy(policy),
            message: `Policy for agent ${agentId} deactivated: its payments are refused. Removing a policy takes the API key and secret.`,
          };
        }
        if (!(await deleteAgentPolicy(db, auth.merchantId, auth.mode, agentId))) throw missing();
        return { success: true, message: `Policy for agent ${agentId} deleted.` };
      },
      {
        auth: "public",
        params: agentParams,
        detail: { summary: "Remove an agent's policy (key + secret); with a public key, deactivate it (the agent is refused). 404 for an unknown agent" },
      },
    );
