import type { Queue } from "bullmq";
import Redis from "ioredis";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import { createDb } from "../db/client.ts";
import { rolePoolProbe } from "../db/probedPool.ts";
import type { Prompts } from "../domain/prompts.ts";
import { createChainStatusService } from "../rails/chainStatus.ts";
import { createApp } from "./app.ts";
import { SERVER_MAX_BODY_BYTES } from "./plugins/requestLimits.ts";
import { buildQueueDashboard } from "./queueDashboard.ts";
import { createBatchedCreations } from "./services/batchedCreations.ts";
import { createCredentialCache } from "./services/credentialCache.ts";
import { createNetworkDelays } from "./services/networkDelays.ts";
import { createPaymentStreamHub } from "./services/paymentStreamHub.ts";
import { loadPublicViews } from "./services/publicPaymentViews.ts";
import { createX402SettlementWaits } from "./services/x402SettlementWaits.ts";

/** Starts the HTTP API on the configured host and port; `stop` drains and closes (the prompts too). */
export async function startApiServer(config: Config, logger: Logger, databaseUrl: string, prompts: Prompts, queues: Queue[] = []) {
  const handle = createDb(databaseUrl, { max: config.databasePoolSize, probe: rolePoolProbe(config.databaseProbeTimeoutMs, logger) });
  const redis = new Redis(config.redis.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
  redis.on("error", (error) => logger.warn({ err: error }, "redis connection error"));
  await redis.connect().catch((error) => logger.warn({ err: error }, "redis not reachable yet"));
  const chainStatus = createChainStatusService(config, handle.db);
  const deps = { config, db: handle.db, networkDelays: createNetworkDelays({ config, db: handle.db, chainStatus }) };
  const paymentStreams = createPaymentStreamHub({
    databaseUrl,
    logger,
    load: (ids) => loadPublicViews(deps, ids),
    maxStreams: config.checkout.maxStreams,
  });
  const credentials = createCredentialCache({ db: handle.db, databaseUrl, logger });
  const x402Waits = createX402SettlementWaits({ databaseUrl, logger });
  const app = createApp({
    config,
    db: handle.db,
    credentials,
    creations: createBatchedCreations(handle.db, logger, prompts),
    redis,
    logger,
    chainStatus,
    networkDelays: deps.networkDelays,
    prompts,
    paymentStreams,
    x402Waits,
    startedAt: new Date(),
    queueDashboard: await buildQueueDashboard(config, queues),
  });
  app.listen({ hostname: config.http.host, port: config.http.port, maxRequestBodySize: SERVER_MAX_BODY_BYTES, idleTimeout: idleTimeoutSeconds(config) });
  logger.info({ url: config.http.publicBaseUrl, docs: `${config.http.publicBaseUrl}/docs` }, "API listening");
  return {
    app,
    stop: async () => {
      // Open streams never end by themselves: close them first, or the drain would wait forever.
      await paymentStreams.stop();
      await x402Waits.stop();
      await app.stop();
      await credentials.stop();
      await prompts.close();
      await Promise.all(queues.map((q) => q.close()));
      redis.disconnect();
      await handle.close();
    },
  };
}

/**
 * Bun closes a connection silent this long (30 s unless told). A request waiting on a slow
 * provider within its configured timeouts (a cross-chain quote: Relay, retried on 429 up to
 * twice; a node read) must get its answer (a 502 body, or the payment), not a reset while its
 * transaction may still commit. At most Bun's 255 s.
 */
export function idleTimeoutSeconds(config: Config): number {
  const slowest = 3 * config.bridge.relay.timeoutMs + config.rpcTimeoutMs + config.rates.timeoutMs;
  return Math.min(255, Math.max(30, Math.ceil(slowest / 1000) + 5));
}
