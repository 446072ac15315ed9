import type { Job } from "bullmq";
import type { Db } from "../db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../db/idempotencyCleanup.ts";
import type { JobPayloads } from "./queues.ts";

/** Idempotent by nature: deleting what is already gone deletes nothing. */
export const idempotencyCleanup = (db: Db) => async (job: Job<JobPayloads["idempotency-cleanup"]>) => ({
  deleted: await deleteExpiredIdempotencyKeys(db, job.data.olderThanHours ?? 24),
});
