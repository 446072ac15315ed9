import { Elysia } from "elysia";
import { settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";

export const merchantRoutes = ({ config, db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/merchants", tags: ["Merchants"] }).use(authPlugin(credentials)).get(
    "/wallets",
    async ({ auth }) => {
      const wallets = await settlementWalletsByNetwork(db, auth.merchantId);
      return {
        success: true,
        // One entry per supported network (mainnets and testnets, with or without an RPC here), configured or not.
        wallets: config.networks.map((n) => {
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
