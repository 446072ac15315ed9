import { Elysia } from "elysia";
import { networksForMode } from "../../config/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentNetwork, presentStablecoins } from "../presenters/network.ts";
import type { Mode } from "../../domain/mode.ts";

/**
 * Catalogue reads. A credential's mode picks the networks: test keys see testnets (and
 * the local chains in development), live keys see mainnets. "Supported" means enabled:
 * an RPC URL is configured and the operator has not disabled it.
 */
export const networkRoutes = ({ config, db, chainStatus }: ApiDeps) => {
  const supported = (mode: Mode) => networksForMode(config, mode).filter((n) => n.enabled);
  const payable = async (mode: Mode) =>
    (await chainStatus.statuses(supported(mode))).filter((s) => s.payable).map((s) => s.network);

  return new Elysia({ prefix: "/networks", tags: ["Networks"] })
    .use(authPlugin(db))
    .get("", ({ auth }) => ({ success: true, networks: supported(auth.mode).map(presentNetwork) }), {
      auth: "public",
      detail: { summary: "All supported networks" },
    })
    .get("/payable", async ({ auth }) => ({ success: true, networks: (await payable(auth.mode)).map(presentNetwork) }), {
      auth: "public",
      detail: { summary: "Networks that can accept payment now (RPC reachable, indexer caught up)" },
    })
    .get("/stablecoins", ({ auth }) => ({ success: true, stablecoins: presentStablecoins(supported(auth.mode)) }), {
      auth: "public",
      detail: { summary: "Supported tokens" },
    })
    .get(
      "/payable/stablecoins",
      async ({ auth }) => ({ success: true, stablecoins: presentStablecoins(await payable(auth.mode)) }),
      { auth: "public", detail: { summary: "Tokens on networks that can accept payment now" } },
    );
};
