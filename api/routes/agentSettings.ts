import { Elysia, t } from "elysia";
import { findUnknownAgents, setUnknownAgents } from "../../db/agentSettings.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";

/**
 * How the account treats agents without a policy, per mode (API key + secret):
 * `unknownAgents: "allow"` (default) or `"deny"` (refused at payment creation).
 */
export const agentSettingRoutes = ({ db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/merchants/agent-settings", tags: ["Merchants"] })
    .use(authPlugin(credentials))
    .get("", async ({ auth }) => ({ success: true, mode: auth.mode, unknownAgents: await findUnknownAgents(db, auth.merchantId, auth.mode) }), {
      auth: "secret",
      detail: { summary: "Whether agents without a policy may create payments (unknownAgents: allow or deny)" },
    })
    .put(
      "",
      async ({ auth, body }) => {
        const value = (body as { unknownAgents?: unknown }).unknownAgents;
        if (value !== "allow" && value !== "deny") throw new ValidationError("unknownAgents", "Invalid field 'unknownAgents': expected \"allow\" or \"deny\"");
        await setUnknownAgents(db, auth.merchantId, auth.mode, value);
        return { success: true, mode: auth.mode, unknownAgents: value };
      },
      {
        auth: "secret",
        body: t.Object({ unknownAgents: t.Unknown({ description: '"allow" (default): an agent without a policy is not limited; "deny": it is refused' }) }, { additionalProperties: true }),
        detail: { summary: "Allow or refuse agents without a policy, in this key's mode" },
      },
    );
