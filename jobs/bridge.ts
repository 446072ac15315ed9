import type { Job } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { findBridgeRequest } from "../db/bridgeRequests.ts";
import { findPayment } from "../db/payments.ts";
import type { Prompts } from "../domain/prompts.ts";
import { crossChainPort } from "../rails/index.ts";
import { recordBridgeProgress } from "../reconcile/index.ts";
import type { JobPayloads } from "./queues.ts";

/** How often a request is read once nothing but a late deposit or a refund can still show (never paid past its expiry; filled; failed). */
const IDLE_POLL_MS = 60_000;

/**
 * `bridge`: reads a cross-chain payment's bridge request (its adapter's status, each leg
 * checked on its chain), records what changed with its `bridge.updated` event — and the
 * payment's state settled from it — in one transaction, prompts the payment's reconcile, and comes back after
 * `BRIDGE_POLL_INTERVAL_MS` (a minute once an unpaid request has expired, or the merchant's
 * side is settled) until the request is finished. A bridge that cannot be read
 * fails the job (retried; the periodic recheck re-drives it). Harmless when run twice.
 */
export const bridge = (deps: { config: Config; db: Db; logger: Logger; prompts: Prompts }) => async (job: Job<JobPayloads["bridge"]>) => {
  const { config, db, prompts } = deps;
  const { paymentId } = job.data;
  const [payment, request] = await Promise.all([findPayment(db, paymentId), findBridgeRequest(db, paymentId)]);
  if (!payment || !request) return { status: "missing" };
  const seen = await crossChainPort().observe({ config, db, logger: deps.logger }, payment, request);
  const now = new Date();
  const recorded = await recordBridgeProgress({ db, config }, paymentId, seen, now);
  await prompts.reconcile([paymentId], `bridge-${Math.floor(now.getTime() / 1_000)}`);
  // Never paid and past its expiry, only a late deposit (the bridge's to return) can still come;
  // filled or failed, only a refund can still show; stuck for hours, it will not move in seconds:
  // read it less often.
  const idle = (seen.progress === "waiting" && now.getTime() > request.expiresAt.getTime()) || recorded.settled || recorded.stuck;
  const delayMs = idle ? Math.max(config.bridge.pollIntervalMs, IDLE_POLL_MS) : config.bridge.pollIntervalMs;
  if (!recorded.finished && !recorded.stale) await prompts.bridge([paymentId], { delayMs });
  return { progress: seen.progress, bridgeStatus: seen.bridgeStatus, changed: recorded.changed, finished: recorded.finished, nextReadMs: recorded.finished ? null : delayMs };
};
