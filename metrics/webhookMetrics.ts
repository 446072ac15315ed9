import { Counter } from "prom-client";
import { registry } from "./registry.ts";

/**
 * Webhook attempts by outcome: `delivered` (a 2xx), `retrying` (failed, another attempt
 * is scheduled), `failed` (failed, attempts exhausted or the target refused as unsafe),
 * `disabled` (410 Gone). A delivery closed unsent because its endpoint or event is gone
 * made no attempt, and is not counted.
 */
export const webhookAttempts = new Counter({
  name: "stablepay_webhook_attempts_total",
  help: "Webhook delivery attempts, by outcome (delivered, retrying, failed, disabled).",
  labelNames: ["outcome"] as const,
  registers: [registry],
});
