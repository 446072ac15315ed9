import { randomBytes } from "node:crypto";
import { createApp } from "../api/app.ts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { stockedMethods } from "../rails/index.ts";
import { buildQueueDashboard } from "../api/queueDashboard.ts";
import type { ApiDeps } from "../api/deps.ts";
import { createChainStatusService } from "../rails/chainStatus.ts";
import { type FileNetworkInput } from "../config/index.ts";
import { createLogger, type Logger } from "../config/logger.ts";
import { createDb, type DbOptions } from "../db/client.ts";
import { issueCredential } from "../db/credentials.ts";
import { createMerchant } from "../db/merchants.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { GENEROUS_LIMITS } from "./generousLimits.ts";
import { createTestRedis } from "./redis.ts";
import { createPrompts } from "../jobs/prompts.ts";
import { openAllQueues } from "../jobs/queues.ts";
import { createBatchedCreations } from "../api/services/batchedCreations.ts";
import { createCredentialCache } from "../api/services/credentialCache.ts";
import { createPaymentStreamHub } from "../api/services/paymentStreamHub.ts";
import { createX402SettlementWaits } from "../api/services/x402SettlementWaits.ts";
import { createNetworkDelays } from "../api/services/networkDelays.ts";
import { loadPublicViews } from "../api/services/publicPaymentViews.ts";
import { buildConfig } from "../plugins/config.ts";

export type TestMerchant = {
  id: string;
  publicKey: string;
  livePublicKey: string;
  apiKey: string;
  apiSecret: string;
  testApiKey: string;
  testApiSecret: string;
};

/**
 * A real app on an isolated database and Redis prefix. `request` goes through
 * `app.handle` with no server; `close` drops everything the test made.
 */
export async function createTestApi(
  options: {
    env?: Record<string, string>;
    networks?: FileNetworkInput[];
    logger?: Logger;
    database?: TestDatabase;
    databaseProbe?: DbOptions["probe"];
    /** `generous` (default): `GENEROUS_LIMITS`; `defaults`: the service's own rate limits and caps. */
    limits?: "generous" | "defaults";
  } = {},
) {
  const database = options.database ?? (await createTestDatabase());
  const redis = createTestRedis(options.env?.REDIS_URL);
  const limits = options.limits === "defaults" ? {} : GENEROUS_LIMITS;
  const config = buildConfig(
    {
      APP_ENV: "test",
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      QUEUE_PREFIX: redis.prefix,
      LOG_LEVEL: "silent",
      // The test chains' settlement contracts take intents from this signer (`startPaymentChain`).
      INTENT_SIGNER_PRIVATE_KEY: anvilAccounts[6],
      // A seed of each test API's own, as an operator's is: no two tests share deposit keys.
      SOLANA_DEPOSIT_SEED: randomBytes(32).toString("hex"),
      ...limits,
      ...options.env,
    },
    { extraNetworks: options.networks },
  );
  const handle = createDb(database.url, { max: 5, probe: options.databaseProbe });
  const logger = options.logger ?? createLogger({ level: "silent" });
  const prompts = createPrompts(config, { failFast: true });
  const chainStatus = createChainStatusService(config, handle.db, { cacheMs: 0 });
  // Re-read often: a test sees a chain's fault (and its end) on the checkout view within a moment.
  const networkDelays = createNetworkDelays({ config, db: handle.db, chainStatus }, { refreshMs: 200 });
  const deps: ApiDeps = {
    config,
    db: handle.db,
    redis: redis.redis,
    logger,
    chainStatus,
    networkDelays,
    prompts,
    creations: createBatchedCreations(handle.db, logger, prompts),
    credentials: createCredentialCache({ db: handle.db, databaseUrl: database.url, logger }),
    paymentStreams: createPaymentStreamHub({
      databaseUrl: database.url,
      logger,
      load: (ids) => loadPublicViews({ config, db: handle.db, networkDelays }, ids),
      maxStreams: config.checkout.maxStreams,
    }),
    x402Waits: createX402SettlementWaits({ databaseUrl: database.url, logger }),
    startedAt: new Date(),
  };
  // Stocked as the sandbox starts (Solana's deposit addresses), whether or not the test runs workers.
  for (const { method } of stockedMethods(config)) await method.replenish({ config, db: handle.db, logger });
  const queues = openAllQueues(config, { failFast: true });
  deps.queueDashboard = await buildQueueDashboard(config, queues);
  const app = createApp(deps);

  async function request(
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<{ status: number; headers: Headers; body: any }> {
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
        body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
      }),
    );
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body };
  }

  async function seedMerchant(name = "Test merchant"): Promise<TestMerchant> {
    const merchant = await createMerchant(handle.db, { name });
    const [pkTest, pkLive, skLive, skTest] = await Promise.all([
      issueCredential(handle.db, merchant.id, "public", "test"),
      issueCredential(handle.db, merchant.id, "public", "live"),
      issueCredential(handle.db, merchant.id, "secret", "live"),
      issueCredential(handle.db, merchant.id, "secret", "test"),
    ]);
    return {
      id: merchant.id,
      publicKey: pkTest.key,
      livePublicKey: pkLive.key,
      apiKey: skLive.key,
      apiSecret: skLive.secret!,
      testApiKey: skTest.key,
      testApiSecret: skTest.secret!,
    };
  }

  return {
    app,
    deps,
    config,
    db: handle.db,
    databaseUrl: database.url,
    request,
    seedMerchant,
    close: async () => {
      await deps.paymentStreams.stop();
      await deps.x402Waits.stop();
      await deps.credentials.stop();
      await deps.prompts.close();
      await Promise.all(queues.map((q) => q.close()));
      await handle.close();
      await redis.cleanup();
      await database.drop();
    },
  };
}

export type TestApi = Awaited<ReturnType<typeof createTestApi>>;
