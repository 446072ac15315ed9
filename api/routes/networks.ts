import { Elysia } from "elysia";
import { networksForMode } from "../../config/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentNetwork, presentStablecoins } from "../presenters/network.ts";
import type { Mode } from "../../domain/mode.ts";

/**
 * Catalogue reads. "Supported" is every network the service knows — mainnets and
 * testnets, EVM and Solana, each with `isTestnet` — whether or not this deployment has an
 * RPC for it. "Payable" is narrower: networks of the key's mode (test keys: testnets and
 * the local chains; live keys: mainnets) that are enabled, reachable, indexed to within
 * the allowed lag and have their contracts deployed.
 */
export const networkRoutes = ({ config, db, chainStatus, credentials }: ApiDeps) => {
  const supported = () => config.networks;
  const payable = async (mode: Mode) =>
    (await chainStatus.statuses(networksForMode(config, mode).filter((n) => n.enabled))).filter((s) => s.payable).map((s) => s.network);

  return new Elysia({ prefix: "/networks", tags: ["Networks"] })
    .use(authPlugin(credentials))
    .get("", () => ({ success: true, networks: supported().map(presentNetwork) }), {
      auth: "public",
      detail: { summary: "Every supported network, mainnets and testnets, whether or not this deployment has an RPC for it" },
    })
    .get("/payable", async ({ auth }) => ({ success: true, networks: (await payable(auth.mode)).map(presentNetwork) }), {
      auth: "public",
      detail: { summary: "Networks of the key's mode that can accept payment now (enabled, RPC reachable, indexer caught up, contracts deployed)" },
    })
    .get("/stablecoins", () => ({ success: true, stablecoins: presentStablecoins(supported()) }), {
      auth: "public",
      detail: { summary: "Tokens of every supported network" },
    })
    .get(
      "/payable/stablecoins",
      async ({ auth }) => ({ success: true, stablecoins: presentStablecoins(await payable(auth.mode)) }),
      { auth: "public", detail: { summary: "Tokens on networks that can accept payment now" } },
    );
};
