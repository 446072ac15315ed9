import { Elysia } from "elysia";
import { modeOfNetwork } from "../../config/index.ts";
import { x402ChainOf } from "../../rails/x402/chains.ts";
import { x402Names, x402Networks } from "../../rails/x402/networkNames.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { rememberVerified } from "../services/x402RecentVerifications.ts";
import { parseX402Request } from "../services/x402Request.ts";
import { settleX402 } from "../services/x402Settle.ts";
import { apiFacilitator, verifyX402 } from "../services/x402Verify.ts";

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
      async ({ auth }) => {
        // The networks of the credential's mode only: a test key's resource server offers test chains.
        // Solana's kinds name the operator's address as `extra.feePayer`: the transfer's fee payer.
        // Not one whose payments the operator could not settle (rails/x402/settlerProblem.ts).
        const networks = x402Networks(deps.config).filter((n) => modeOfNetwork(n) === auth.mode);
        const settles = await Promise.all(networks.map(async (n) => (await x402ChainOf(n).settlerProblem(deps.config, n)) === null));
        const names = new Set(networks.filter((_, i) => settles[i]).flatMap((n) => x402Names(n)));
        const supported = apiFacilitator(deps.config).getSupported();
        return { ...supported, kinds: supported.kinds.filter((k) => names.has(k.network)) };
      },
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
