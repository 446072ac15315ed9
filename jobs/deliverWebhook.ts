import { DelayedError, type Job } from "bullmq";
import type { Config } from "../config/index.ts";
import { enterLogContext } from "../config/logContext.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { findEvent } from "../db/eventFeed.ts";
import { eventEnvelope } from "../domain/eventPayload.ts";
import { claimDelivery, recordAttempt, releaseDelivery, waitsForItsUrl, type AttemptRecord, type DeliveryOutcome } from "../db/webhookDeliveries.ts";
import { callbackSigningSecret, findWebhookEndpoint, signingSecrets } from "../db/webhookEndpoints.ts";
import { retryDelay } from "../domain/retryDelay.ts";
import { signWebhook } from "../domain/webhookSignature.ts";
import { webhookAttempts } from "../metrics/webhookMetrics.ts";
import { checkWebhookUrl } from "../webhooks/checkWebhookUrl.ts";
import { postWebhook } from "../webhooks/postWebhook.ts";
import type { JobPayloads } from "./queues.ts";
import { publicTargetsOnly } from "../webhooks/publicTargetsOnly.ts";

/** First wait of a delivery whose URL is busy, doubled on each wait up to the longest. */
const URL_BUSY_WAIT_MS = 100;
const URL_BUSY_MAX_WAIT_MS = 15_000;

/** Thrown to have BullMQ retry the job after `retryInMs` (read by the webhook worker's backoff strategy). */
export class RetryDeliveryError extends Error {
  override name = "RetryDeliveryError";
  constructor(
    message: string,
    readonly retryInMs: number,
  ) {
    super(message);
  }
}

/**
 * `deliver`: one attempt of one delivery row. Signs the event (Standard Webhooks; the
 * `webhook-id` is the event id on every attempt) and POSTs it with a timeout, no
 * redirects followed. Any 2xx is delivered; 410 disables the endpoint; anything else
 * (and a timeout) is retried on the configured schedule until the attempts run out.
 * In live mode (and test mode where `WEBHOOK_TEST_TARGETS=public`) the target is checked
 * again first: an address that is not public is refused without sending anything. Every attempt is logged with the row update.
 */
export const deliverWebhook = (deps: { config: Config; db: Db; logger: Logger }) => async (job: Job<JobPayloads["deliver"]>, token?: string): Promise<unknown> => {
  const { config, db, logger } = deps;
  const { retryDelaysMs, timeoutMs, maxInFlightPerUrl, maxInFlightPerMerchant } = config.webhooks;
  const delivery = await claimDelivery(db, job.data.deliveryId, timeoutMs + 30_000, { perUrl: maxInFlightPerUrl, perMerchant: maxInFlightPerMerchant });
  if (!delivery) {
    if (!(await waitsForItsUrl(db, job.data.deliveryId))) return { skipped: true };
    // Its URL, or its merchant, has its share of attempts in flight (a receiver that hangs
    // would otherwise hold every slot, and every other merchant's webhooks would wait): back
    // later, more slowly each time, without spending one of the delivery's attempts.
    const waits = job.data.waits ?? 0;
    await job.updateData({ ...job.data, waits: waits + 1 });
    await job.moveToDelayed(Date.now() + Math.min(URL_BUSY_MAX_WAIT_MS, URL_BUSY_WAIT_MS * 2 ** waits) * (0.75 + Math.random() / 2), token);
    throw new DelayedError();
  }

  let finished = false;
  const finish = async (attempt: AttemptRecord | null, outcome: DeliveryOutcome, options?: { disableEndpoint?: string }) => {
    await recordAttempt(db, delivery, attempt, outcome, options);
    finished = true;
    if (attempt) webhookAttempts.inc({ outcome: outcome.status === "pending" ? "retrying" : outcome.status });
  };
  try {
    const event = await findEvent(db, delivery.eventId);
    if (event) enterLogContext({ paymentId: event.paymentId });
    let secrets: string[];
    if (delivery.endpointId) {
      const endpoint = await findWebhookEndpoint(db, config.secrets, delivery.endpointId, { removed: true });
      if (!event || !endpoint || endpoint.deletedAt || endpoint.disabledAt) {
        await finish(null, { status: "disabled" });
        return { status: "disabled" };
      }
      secrets = signingSecrets(endpoint);
    } else {
      if (!event) {
        await finish(null, { status: "disabled" });
        return { status: "disabled" };
      }
      secrets = signingSecrets(await callbackSigningSecret(db, config.secrets, delivery.merchantId, delivery.mode));
    }

    const attemptNumber = delivery.attempts + 1;
    const retryOrFail = (): DeliveryOutcome => {
      const retryInMs = retryDelay(retryDelaysMs, attemptNumber);
      return retryInMs === null ? { status: "failed" } : { status: "pending", retryInMs };
    };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);

    // Public targets only (live mode; test mode on production): the addresses approved here are the only ones the request may connect to.
    let pinned: string[] | undefined;
    if (publicTargetsOnly(config.webhooks, delivery.mode)) {
      const check = await checkWebhookUrl(delivery.url);
      if (!check.ok) {
        const unsafe = check.problem === "unsafe" || check.problem === "invalid";
        const outcome: DeliveryOutcome = unsafe ? { status: "failed" } : retryOrFail();
        await finish({ statusCode: null, latencyMs: elapsed(), responseExcerpt: null, error: `not sent: ${check.reason}` }, outcome);
        logger.warn({ deliveryId: delivery.id, reason: check.reason }, "webhook target refused");
        if (outcome.status === "pending") throw new RetryDeliveryError(check.reason, outcome.retryInMs);
        return { status: outcome.status };
      }
      pinned = check.addresses;
    }

    const body = JSON.stringify(eventEnvelope(event));
    const headers = signWebhook({ msgId: event.id, timestamp: new Date(), body, secrets });
    let statusCode: number | null = null;
    let excerpt: string | null = null;
    let error: string | null = null;
    try {
      const response = await postWebhook(delivery.url, {
        headers: { "content-type": "application/json", "user-agent": "stablepay-webhooks/1", ...headers },
        body,
        timeoutMs,
        addresses: pinned,
      });
      statusCode = response.statusCode;
      excerpt = response.excerpt;
    } catch (e) {
      error = (e as Error).message;
    }

    const attempt = { statusCode, latencyMs: elapsed(), responseExcerpt: excerpt, error };
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
      await finish(attempt, { status: "delivered" });
      return { status: "delivered", attempt: attemptNumber };
    }
    if (statusCode === 410) {
      await finish(attempt, { status: "disabled" }, { disableEndpoint: "the endpoint answered 410 Gone" });
      logger.info({ deliveryId: delivery.id, endpointId: delivery.endpointId }, "webhook endpoint answered 410; disabled");
      return { status: "disabled", attempt: attemptNumber };
    }
    const outcome = retryOrFail();
    await finish(attempt, outcome);
    const what = error ?? `HTTP ${statusCode}`;
    if (outcome.status === "pending") throw new RetryDeliveryError(`attempt ${attemptNumber} failed: ${what}`, outcome.retryInMs);
    logger.warn({ deliveryId: delivery.id, attempts: attemptNumber }, "webhook delivery gave up");
    return { status: outcome.status, attempt: attemptNumber };
  } finally {
    if (!finished) await releaseDelivery(db, delivery).catch(() => {});
  }
};
