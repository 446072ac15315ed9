import type Redis from "ioredis";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { Prompts } from "../domain/prompts.ts";
import type { ChainStatusService } from "../rails/chainStatus.ts";
import type { QueueDashboard } from "./queueDashboard.ts";
import type { PaymentCreations } from "./services/batchedCreations.ts";
import type { CredentialLookup } from "./services/credentialCache.ts";
import type { NetworkDelays } from "./services/networkDelays.ts";
import type { PaymentStreamHub } from "./services/paymentStreamHub.ts";
import type { X402SettlementWaits } from "./services/x402SettlementWaits.ts";

/** Everything the HTTP layer needs, built once by the process entry point (or a test). */
export type ApiDeps = {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  chainStatus: ChainStatusService;
  /** Chains lagging or down, read at most every few seconds: the checkout view's "network delayed". */
  networkDelays: NetworkDelays;
  /** Reconcile, expiry, sweep and refund prompts (given after commit). */
  prompts: Prompts;
  /** This process's checkout streams and their one listening connection. */
  paymentStreams: PaymentStreamHub;
  /** x402 settles waiting for the worker's word (`createX402SettlementWaits`): one listening connection. */
  x402Waits: X402SettlementWaits;
  /** Payment creations, written in batches with concurrent ones (`createBatchedCreations`). */
  creations: PaymentCreations;
  /** Active credentials by key, cached while revocations can be heard (`createCredentialCache`). */
  credentials: CredentialLookup;
  startedAt: Date;
  /** The operators' queue dashboard, when on (`buildQueueDashboard` over queues the entry point opened: the API never imports `jobs/`). */
  queueDashboard?: QueueDashboard | null;
};
