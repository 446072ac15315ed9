import { z } from "zod";
import { envSection } from "./section.ts";
import { port } from "./formats.ts";

export const operationsEnv = envSection("Metrics and the queue dashboard", "The operators' endpoints: every role's `/metrics` and the queue dashboard, behind one bearer token.", {
  OPERATOR_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,512}$/, "must be 16 to 512 printable characters without spaces (e.g. `openssl rand -hex 32`)")
    .optional()
    .describe("Operators' bearer token for `/metrics` and the queue dashboard, 16 to 512 printable characters (`openssl rand -hex 32`). Unset: both are off. Read by: api, worker, indexer, solana."),
  METRICS_HOST: z.string().min(1).optional().describe("Interface the worker, indexer and solana roles serve their `/metrics` on (the API serves it on its own port). Unset: HOST. Read by: worker, indexer, solana."),
  WORKER_METRICS_PORT: port.default(9464).describe("Port of the worker's `/metrics`; 0: none. Read by: worker."),
  INDEXER_METRICS_PORT: port.default(9465).describe("Port of the indexer role's `/metrics`; 0: none. Read by: indexer."),
  METRICS_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(2)
    .max(3_600)
    .default(30)
    .describe("Seconds of the lease of the one worker exporting the shared-state gauges (queue depths, transfers out); it renews it every third of that, and another worker takes over once a dead holder's lease has run out. Read by: worker."),
  QUEUE_DASHBOARD: z
    .enum(["read-only", "read-write", "off"])
    .default("read-only")
    .describe("The queue dashboard at `/admin/queues` (with OPERATOR_TOKEN): `read-only`, `read-write` (retry, remove, pause jobs) or `off`. Read by: api."),
});
