import { Elysia } from "elysia";
import { networksForMode } from "../../config/index.ts";
import { settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";

export const merchantRoutes = ({ config, db }: ApiDeps) =>
  new Elysia({ prefix: "/merchants", tags: ["Merchants"] }).use(authPlugin(db)).get(
    "/wallets",
    async ({ auth }) => {
      const wallets = await settlementWalletsByNetwork(db, auth.merchantId);
      return {
        success: true,
        // One entry per supported network of the key's mode, configured or not.
        wallets: networksForMode(config, auth.mode)
          .filter((n) => n.enabled)
          .map((n) => {
            const walletAddress = wallets.get(n.id) ?? "";
            return {
              networkId: n.id,
              networkName: n.name,
              networkShortName: n.shortName,
              networkType: n.type,
              walletAddress,
              isConfigured: walletAddress !== "",
              supportedTokens: n.tokens.map((t) => t.symbol),
            };
          }),
      };
    },
    { auth: "public", detail: { summary: "The merchant's settlement wallets, one entry per supported network" } },
  );
