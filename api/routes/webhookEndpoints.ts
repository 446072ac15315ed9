import { Elysia, t } from "elysia";
import { callbackSigningSecret, findWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint, rotateCallbackSigningSecret, rotateWebhookEndpointSecret } from "../../db/webhookEndpoints.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin, type AuthContext } from "../plugins/auth.ts";
import { presentWebhookEndpoint } from "../presenters/webhook.ts";
import { uuidPattern } from "../schemas.ts";
import { registerWebhookEndpoint } from "../services/webhookEndpoints.ts";

const endpointParams = t.Object({ id: t.String({ maxLength: 100, description: "Webhook endpoint id (uuid)" }) });

/**
 * Webhook endpoints of the calling key's merchant and mode (API key + secret only):
 * add (the response carries the signing secret), list, remove, rotate the secret.
 */
export const webhookEndpointRoutes = ({ config, db, credentials }: ApiDeps) => {
  /** The endpoint if it is this account's; 400 for a malformed id, 404 for an unknown one. */
  async function ownEndpoint(auth: AuthContext, id: string) {
    if (!uuidPattern.test(id)) throw new ValidationError("id", "Invalid path parameter 'id': expected a uuid");
    const endpoint = await findWebhookEndpoint(db, config.secrets, id);
    if (!endpoint || endpoint.merchantId !== auth.merchantId || endpoint.mode !== auth.mode) throw new NotFoundError(`No webhook endpoint with id ${id}.`);
    return endpoint;
  }

  return new Elysia({ prefix: "/webhook-endpoints", tags: ["Webhooks"] })
    .use(authPlugin(credentials))
    .post(
      "",
      async ({ auth, body, set }) => {
        const endpoint = await registerWebhookEndpoint(db, { box: config.secrets, testTargets: config.webhooks.testTargets }, auth, body);
        set.status = 201;
        return { success: true, endpoint: presentWebhookEndpoint(endpoint, { withSecret: true }) };
      },
      {
        auth: "secret",
        body: t.Object(
          {
            url: t.String({ maxLength: 2048, description: "http(s) URL; in live mode it must resolve to public addresses" }),
            events: t.Optional(t.Unknown({ description: 'Event types to receive, e.g. ["payment.completed"]; default ["*"] (all)' })),
            description: t.Optional(t.Unknown({ description: "Free text, at most 500 characters" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "Add a webhook endpoint (the response holds its signing secret)" },
      },
    )
    .get(
      "",
      async ({ auth }) => ({
        success: true,
        endpoints: (await listWebhookEndpoints(db, config.secrets, auth.merchantId, auth.mode)).map((e) => presentWebhookEndpoint(e)),
      }),
      { auth: "secret", detail: { summary: "The webhook endpoints of this key's mode" } },
    )
    .delete(
      "/:id",
      async ({ auth, params }) => {
        const endpoint = await ownEndpoint(auth, params.id);
        await removeWebhookEndpoint(db, endpoint.id);
        return { success: true, id: endpoint.id, deleted: true };
      },
      { auth: "secret", params: endpointParams, detail: { summary: "Remove a webhook endpoint; its pending deliveries stop" } },
    )
    .post(
      "/:id/rotate-secret",
      async ({ auth, params }) => {
        const endpoint = await ownEndpoint(auth, params.id);
        const rotated = await rotateWebhookEndpointSecret(db, config.secrets, endpoint.id, config.webhooks.secretOverlapMs);
        // Removed between the read and the rotation (a concurrent DELETE): gone, as a read after it would say.
        if (!rotated) throw new NotFoundError(`No webhook endpoint with id ${endpoint.id}.`);
        return { success: true, endpoint: presentWebhookEndpoint(rotated, { withSecret: true }) };
      },
      {
        auth: "secret",
        params: endpointParams,
        detail: { summary: "New signing secret; the old one keeps signing (a second signature) until previousSecretExpiresAt" },
      },
    );
};

/** The secret that signs deliveries to payments' `callbackUrl`s, per merchant and mode. */
export const webhookSecretRoutes = ({ config, db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/webhook-secret", tags: ["Webhooks"] })
    .use(authPlugin(credentials))
    .get(
      "",
      async ({ auth }) => {
        const row = await callbackSigningSecret(db, config.secrets, auth.merchantId, auth.mode);
        return { success: true, mode: auth.mode, secret: row.secret, previousSecretExpiresAt: overlapEnd(row) };
      },
      { auth: "secret", detail: { summary: "The secret that signs webhooks sent to payments' callbackUrl (created on first use)" } },
    )
    .post(
      "/rotate",
      async ({ auth }) => {
        const row = await rotateCallbackSigningSecret(db, config.secrets, auth.merchantId, auth.mode, config.webhooks.secretOverlapMs);
        return { success: true, mode: auth.mode, secret: row.secret, previousSecretExpiresAt: overlapEnd(row) };
      },
      { auth: "secret", detail: { summary: "Rotate the callbackUrl signing secret (the old one keeps signing during the overlap)" } },
    );

const overlapEnd = (row: { previousSecret: string | null; previousSecretExpiresAt: Date | null }) =>
  row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt.toISOString() : null;
