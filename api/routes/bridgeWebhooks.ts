import { Elysia } from "elysia";
import { paymentOfBridgeRequest } from "../../db/bridgeRequests.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import { crossChainPort } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";

/**
 * Bridges' own webhooks. Relay's `request.status.updated` (signed with the API key) only
 * prompts the payment's `bridge` job, which reads the request again: a webhook is never
 * evidence by itself. Unknown requests and other events are acknowledged and ignored.
 */
export const bridgeWebhookRoutes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/webhooks", tags: ["Bridges"] }).post(
    "/relay",
    async ({ body, headers }) => {
      // Read as text (the signature covers the exact bytes), held to the same rule as every route.
      const rawBody = typeof body === "string" ? body : "";
      try {
        JSON.parse(rawBody);
      } catch {
        throw new ValidationError("body", "The request body is not valid JSON.");
      }
      const apiKey = deps.config.bridge.relay.apiKey;
      if (!apiKey) throw new NotFoundError("Relay webhooks are not configured (RELAY_API_KEY).");
      const event = crossChainPort().verifyRelayWebhook({
        apiKey,
        timestampHeader: headers["x-signature-timestamp"],
        signatureHeader: headers["x-signature-sha256"],
        rawBody,
      });
      const paymentId = event ? await paymentOfBridgeRequest(deps.db, "relay", { requestId: event.requestId, depositAddress: event.depositAddress }) : undefined;
      if (paymentId) await deps.prompts.bridge([paymentId]);
      return { success: true, received: true };
    },
    { parse: "text", detail: { summary: "Relay's request.status.updated webhooks (signed; they prompt a status read)" } },
  );
