import type { Config } from "../../../config/index.ts";
import type { Logger } from "../../../config/logger.ts";
import type { Db } from "../../../db/client.ts";
import { startChainSubscriber, type ChainSubscriber } from "./chainSubscriber.ts";
import { serveHeliusWebhook } from "./serveHeliusWebhook.ts";
import { createHeliusWebhookSync } from "./syncHeliusWebhook.ts";

/**
 * The `solana` role: one subscriber per enabled Solana network, the Helius webhook
 * receiver when a port is configured, and the Helius registration of the watched
 * addresses when an API key is. `channel` is where new evidence is announced.
 */
export function startSolanaSubscriber(deps: { config: Config; db: Db; logger: Logger; channel: string; websocket?: boolean }) {
  const { config, logger } = deps;
  const networks = config.networks.filter((n) => n.type === "solana" && n.enabled && n.rpcUrl);
  const helius = config.solana.helius;
  const chains: ChainSubscriber[] = networks.map((network) => {
    const register =
      helius.apiKey && helius.webhookUrl && config.solana.webhook.authHeader
        ? createHeliusWebhookSync({ apiKey: helius.apiKey, webhookUrl: helius.webhookUrl, authHeader: config.solana.webhook.authHeader, devnet: network.isTestnet })
        : null;
    return startChainSubscriber({
      ...deps,
      network,
      onWatched: register ? (addresses) => void register(addresses).catch((error) => logger.warn({ err: error }, "helius webhook registration failed; retrying at the next poll")) : undefined,
    });
  });
  if (chains.length === 0) logger.info("no Solana network is enabled: the subscriber has nothing to follow");

  const webhook =
    config.solana.webhook.port > 0 && config.solana.webhook.authHeader
      ? serveHeliusWebhook({
          host: config.solana.webhook.host,
          port: config.solana.webhook.port,
          authHeader: config.solana.webhook.authHeader,
          logger,
          onAddresses: (addresses) => chains.forEach((c) => void c.prompt(addresses, "webhook")),
        })
      : null;

  return {
    chains,
    webhookPort: webhook?.port ?? null,
    ready: Promise.all(chains.map((c) => c.ready)).then(() => undefined),
    async stop() {
      webhook?.stop();
      await Promise.all(chains.map((c) => c.stop()));
    },
  };
}

export type SolanaSubscriber = ReturnType<typeof startSolanaSubscriber>;
