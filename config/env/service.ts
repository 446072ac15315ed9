import { z } from "zod";
import { envSection } from "./section.ts";
import { port, url } from "./formats.ts";

export const serviceEnv = envSection("Service", "What the deployment is, where the API listens and how it is reached.", {
  APP_ENV: z
    .enum(["development", "test", "production"])
    .default("development")
    .describe(
      "The kind of deployment. `production` requires DATABASE_URL, SECRETS_KEY, PUBLIC_BASE_URL and START_BLOCK_<chainId> for every indexed chain, refuses local networks, and sends test-mode webhooks to public addresses only. Read by: every role.",
    ),
  HOST: z.string().min(1).default("127.0.0.1").describe("Interface the API listens on (`0.0.0.0` or `::` for every one); also where the other roles serve `/metrics` unless METRICS_HOST is set. Read by: api (and every role's `/metrics`)."),
  PORT: port.default(3000).describe("TCP port of the API. Read by: api."),
  PUBLIC_BASE_URL: url(["http:", "https:"])
    .optional()
    .describe(
      "The address customers and merchants reach the API at, e.g. `https://pay.example.com`: every checkout link and network logo is built on it (no query or fragment). Required in production; unset elsewhere: `http://HOST:PORT` as this machine reaches it. Read by: api.",
    ),
  CORS_ORIGINS: z
    .string()
    .default("*")
    .transform((v) => v.split(",").map((s) => s.trim().replace(/\/+$/, "")).filter(Boolean))
    .refine((list) => list.length > 0 && list.every((o) => o === "*" || /^https?:\/\/[^/\s*]+$/.test(o)), "must be * or a comma-separated list of origins (scheme://host[:port]; no wildcards)")
    // As a browser sends its Origin (lower-case host, no default port): the list is matched exactly.
    .transform((list) => list.map((o) => (o === "*" ? o : new URL(o).origin)))
    .describe("Browser origins allowed to call the API (checkout pages): `*` for any, or a comma-separated list of origins such as `https://shop.example.com` (no wildcards). Read by: api."),
  DATA_DIR: z.string().min(1).default(".data").describe("Where the sandbox (`npm start`) keeps its embedded database, networks file and `dev-stack.json`, relative to the project. Read by: `npm start`, cli."),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").describe("Level of every role's logs (pino, JSON lines on stdout). Read by: every role."),
  STABLEPAY_ROLE: z
    .string()
    .optional()
    .describe("Set by `scripts/role.ts` for a role's own processes (and Ponder's), not by hand: which secrets its configuration keeps (see `config/roles.ts`): a role's name (`api`, `worker`, `indexer`, `relayer` or a rail's, as `solana`). Unset: a process that runs every role (`npm start`, tests, the cli). Read by: every role."),
});
