import type { Job } from "bullmq";
import { withLogContext, type LogContext } from "../config/logContext.ts";

/** What a job's log lines carry: its name and id, and the payment id(s) or row it points at. */
export function jobLogFields(job: Pick<Job, "name" | "id" | "data">): LogContext {
  const data = (job.data ?? {}) as Record<string, unknown>;
  const fields: LogContext = { job: job.name, jobId: job.id };
  for (const key of ["paymentIds", "paymentId", "deliveryId", "transferId"] as const) {
    if (data[key] !== undefined) fields[key] = data[key];
  }
  return fields;
}

/**
 * Runs a processor with its job's fields on every log line it writes (the payment ids of
 * a reconcile, the payment of a sweep, …). A processor that learns its payment later (a
 * refund from its row, a delivery from its event) adds it with `enterLogContext`.
 */
export const withJobLogContext =
  <J extends Job, R>(processor: (job: J, token?: string) => Promise<R>) =>
  (job: J, token?: string): Promise<R> =>
    withLogContext(jobLogFields(job), () => processor(job, token));
