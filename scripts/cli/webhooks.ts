import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { registerWebhookEndpoint } from "../../api/services/webhookEndpoints.ts";
import type { Db } from "../../db/client.ts";
import {
  callbackSigningSecret,
  findWebhookEndpoint,
  listWebhookEndpoints,
  removeWebhookEndpoint,
  rotateCallbackSigningSecret,
  rotateWebhookEndpointSecret,
  type WebhookEndpointRow,
} from "../../db/webhookEndpoints.ts";
import { AppError } from "../../domain/errors.ts";
import { uuidPattern } from "../../domain/uuid.ts";
import { CommandFailedError, required, UsageError, type Flags } from "./flags.ts";
import { merchantOf, oneOf } from "./lookups.ts";

const showEndpoint = (e: WebhookEndpointRow) =>
  `${e.id}  ${e.mode}  ${e.url}  events: ${e.events.join(",")}${e.disabledAt ? `  disabled ${e.disabledAt.toISOString()} (${e.disabledReason ?? ""})` : "  enabled"}`;

async function endpointOf({ db, config }: { db: Db; config: Config }, flags: Flags) {
  const id = required(flags, "id");
  if (!uuidPattern.test(id)) throw new UsageError("--id must be a webhook endpoint id (uuid)");
  const endpoint = await findWebhookEndpoint(db, config.secrets, id);
  if (!endpoint) throw new UsageError(`no webhook endpoint with id ${id}`);
  return endpoint;
}

/** The operator's commands on webhook endpoints and signing secrets (`webhook …`), each returning the text to print. */
export const webhookCommands: Record<string, (ctx: { db: Db; config: Config; databaseUrl: string; logger: Logger }, flags: Flags) => Promise<string>> = {
  async "webhook add"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const mode = oneOf(flags, "mode", ["test", "live"]);
    const events = typeof flags.events === "string" ? flags.events.split(",").map((e) => e.trim()).filter(Boolean) : undefined;
    try {
      const endpoint = await registerWebhookEndpoint(db, { box: config.secrets, testTargets: config.webhooks.testTargets }, { merchantId: merchant.id, mode }, { url: required(flags, "url"), events });
      return [`Webhook endpoint ${showEndpoint(endpoint)}`, `Signing secret: ${endpoint.secret}`].join("\n");
    } catch (error) {
      // The same checks as the API (URL, live-mode address, event names), worded for flags; a
      // check that could not be made now (the address's DNS lookup failed) is no typing mistake.
      if (error instanceof AppError) {
        const message = error.message.replace(/(?:field )?'(\w+)(\.\d+)?'/, "--$1");
        throw error.status < 500 ? new UsageError(message) : new CommandFailedError(message);
      }
      throw error;
    }
  },

  async "webhook list"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const mode = flags.mode === undefined ? undefined : oneOf(flags, "mode", ["test", "live"]);
    const rows = await listWebhookEndpoints(db, config.secrets, merchant.id, mode);
    return rows.length === 0 ? "No webhook endpoints." : rows.map(showEndpoint).join("\n");
  },

  async "webhook remove"({ db, config }, flags) {
    const endpoint = await endpointOf({ db, config }, flags);
    await removeWebhookEndpoint(db, endpoint.id);
    return `Removed webhook endpoint ${endpoint.id} (${endpoint.url}); its pending deliveries are stopped.`;
  },

  async "webhook rotate"({ db, config }, flags) {
    // Until when the previous secret signs: a rotation within an overlap keeps the older secret and its deadline.
    const overlap = (until: Date | null) => (until ? `The previous secret also signs until ${until.toISOString()}.` : "The previous secret stops signing now.");
    if (flags.id !== undefined) {
      // --merchant/--mode name the callbackUrl secret: with --id they would be ignored (another merchant's endpoint rotated).
      if (flags.merchant !== undefined || flags.mode !== undefined) throw new UsageError("--id names one endpoint: give it alone (--merchant and --mode rotate the callbackUrl secret)");
      const endpoint = await endpointOf({ db, config }, flags);
      const rotated = await rotateWebhookEndpointSecret(db, config.secrets, endpoint.id, config.webhooks.secretOverlapMs);
      if (!rotated) throw new UsageError(`no webhook endpoint with id ${endpoint.id}`);
      return `New signing secret for ${rotated.id}: ${rotated.secret}\n${overlap(rotated.previousSecretExpiresAt)}`;
    }
    // Without --id: the merchant's secret for payments' callbackUrl in that mode.
    const merchant = await merchantOf(db, flags);
    const mode = oneOf(flags, "mode", ["test", "live"]);
    const rotated = await rotateCallbackSigningSecret(db, config.secrets, merchant.id, mode, config.webhooks.secretOverlapMs);
    return `New callbackUrl signing secret (${mode}): ${rotated.secret}\n${overlap(rotated.previousSecretExpiresAt)}`;
  },

  async "webhook secret"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const mode = oneOf(flags, "mode", ["test", "live"]);
    return `callbackUrl signing secret (${mode}): ${(await callbackSigningSecret(db, config.secrets, merchant.id, mode)).secret}`;
  },
};
