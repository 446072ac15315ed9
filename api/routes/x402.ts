import { Elysia } from "elysia";
import { agentPayments } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { rememberVerified } from "../services/x402RecentVerifications.ts";
import { parseX402Request } from "../services/x402Request.ts";
import { settleX402 } from "../services/x402Settle.ts";
import { verifyX402 } from "../services/x402Verify.ts";

/**
 * The x402 facilitator (`/x402/supported`, `/verify`, `/settle`), for the merchant's own
 * resource servers: API key + secret only (it writes payments and moves the payer's money to
 * the merchant), each answer in the protocol's own shapes (v2, and v1's payloads).
 */
export const x402Routes = (deps: ApiDeps) =>
  new Elysia({ prefix: "/x402", tags: ["x402"] })
    .use(authPlugin(deps.credentials))
    .get(
      "/supported",
      // The networks of the credential's mode only, each one the operator can settle on now.
      async ({ auth }) => agentPayments().supported(deps.config, auth.mode),
      { auth: "secret", detail: { summary: "x402: the schemes and networks this facilitator settles" } },
    )
    .post(
      "/verify",
      async ({ auth, body, headers }) => {
        const request = parseX402Request(body);
        const verified = await verifyX402(deps, auth, headers["x-agent-id"], request);
        if (verified.offer) rememberVerified(deps.config, auth, headers["x-agent-id"], request, verified);
        return verified.response;
      },
      { auth: "secret", detail: { summary: "x402: verify a payment payload against the merchant's requirements" } },
    )
    .post("/settle", async ({ auth, body, headers }) => settleX402(deps, auth, headers["x-agent-id"], parseX402Request(body)), {
      auth: "secret",
      detail: { summary: "x402: settle a verified payment into the merchant's wallet (answers pending past X402_SETTLE_WAIT_MS)" },
    });
