import type { Job } from "bullmq";
import { sweepPayment } from "../payouts/index.ts";
import type { RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/** `sweep`: forwards what a payment's deposit address owes its merchant (`sweepPayment`). Harmless when run twice. */
export const sweep = (deps: RailContext) => (job: Job<JobPayloads["sweep"]>) => sweepPayment(deps, job.data.paymentId);
