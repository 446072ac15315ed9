import { z } from "zod";
import { envSection } from "./section.ts";
import { url } from "./formats.ts";

export const storageEnv = envSection("Postgres and Redis", "Postgres is the system of record; Redis only carries prompts and rate-limit counters, and may be flushed.", {
  DATABASE_URL: url(["postgres:", "postgresql:"])
    .optional()
    .describe("Postgres connection string. Required in production and to run a single role; unset, `npm start` runs an embedded PostgreSQL under DATA_DIR. Read by: every role, cli."),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10).describe("Connections in the pool of the api and worker roles (the solana subscriber takes at most 10 of them, the relayer 4). Read by: api, worker, solana."),
  DATABASE_PROBE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .refine((v) => v === 0 || (v >= 500 && v <= 120_000), "must be 0 (off) or 500 to 120000")
    .default(5_000)
    .describe("Milliseconds (500 to 120000) a role waits for Postgres to answer its probe before dropping its connections (a partition, not a slow query); 0: never probe. Read by: every role."),
  REDIS_URL: url(["redis:", "rediss:"]).default("redis://127.0.0.1:6379").describe("Redis for the job queues, prompts and rate limits. `npm start` starts a private `redis-server` when nothing answers here. Read by: api, worker, `npm start`."),
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]+$/).default("stablepay").describe("Prefix of every Redis key the service writes: deployments sharing one Redis need different ones. Read by: api, worker."),
  QUEUE_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1_000).describe("Milliseconds the API waits for Redis to take a prompt before answering without it (or 503 where it is needed). Read by: api."),
});
