import { z } from "zod";
import { envSection } from "./section.ts";

const inFlight = z.coerce.number().int().min(1).max(500);

export const webhooksEnv = envSection("Webhooks", "Delivery of signed webhooks to merchants: retries, timeouts and how much of the workers one receiver may hold.", {
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5,300,1800,7200,18000,36000,36000,50400,50400,50400")
    .refine((v) => v.split(",").every((s) => /^\d+(\.\d+)?$/.test(s.trim())), "must be comma-separated seconds, e.g. 5,300,1800")
    .describe("Comma-separated seconds to wait before each retry of a delivery (the first attempt is immediate); the default retries for about 3 days. Read by: worker."),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000).describe("Milliseconds: an attempt with no answer after this long is a failure, retried. Read by: worker."),
  WEBHOOK_REDRIVE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(3_600_000)
    .default(15_000)
    .describe("Milliseconds between the relay's looks for deliveries that are due but have no job (Redis flushed, a worker killed). Read by: worker."),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce
    .number()
    .min(0)
    .max(30 * 24)
    .default(24)
    .describe("Hours the previous signing secret keeps signing (a second signature) after a rotation. Read by: api, cli."),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(16).describe("Deliveries one worker process attempts at once. Read by: worker."),
  WEBHOOK_MAX_IN_FLIGHT_PER_URL: inFlight.default(4).describe("Attempts to one URL in flight at once, across all workers: a receiver that hangs holds this many slots, not every worker's. Read by: worker."),
  WEBHOOK_MAX_IN_FLIGHT_PER_MERCHANT: inFlight
    .default(8)
    .describe("Attempts to one merchant's URLs in flight at once, across all workers: a merchant whose many URLs hang (or differ only in their query) leaves the other merchants their slots. Read by: worker."),
  WEBHOOK_TEST_TARGETS: z
    .enum(["any", "public"])
    .optional()
    .describe("Where test-mode webhooks may go: `public` addresses only (as live ones always), or `any` (a receiver on the merchant's own machine or network). Unset: `public` when APP_ENV=production, `any` otherwise. Read by: api, worker, cli."),
  WEBHOOK_REDELIVERIES_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(10)
    .describe("How many times a merchant may redeliver one event (`POST /events/{id}/redeliver`) in an hour; past it, 429 with Retry-After. Read by: api."),
});
