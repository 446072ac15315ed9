import { z } from "zod";
import { envSection } from "./section.ts";
import { port } from "./formats.ts";

/** The most blocks one late-money scan covers: dispatch looks this far below its cursor, and one more (`rails/evm/readModel/newEvidence.ts`). */
export const MAX_LATE_SCAN_BLOCKS = 63;

const schemaName = z.string().regex(/^[a-z_][a-z0-9_]*$/);

export const networksEnv = envSection(
  "Networks and indexing",
  "Which networks are served, how their nodes are read, and how long addresses stay watched. Each network's node and contracts are set by the per-network variables below.",
  {
    NETWORKS_FILE: z
      .string()
      .min(1)
      .optional()
      .describe("Path of a JSON file of extra networks (`{networks: [...]}`, `config/networksFile.ts`): one with a catalogue network's shortName replaces it. The sandbox writes `DATA_DIR/networks.local.json`. Read by: every role, cli."),
    NETWORKS_DISABLED: z
      .string()
      .default("")
      .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean))
      .describe("Comma-separated short names of networks not to serve even though their RPC URL is set (an unknown name stops the start). Read by: every role."),
    RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000).describe("Milliseconds one request to a chain's node may take (heads, balances, verifying a submitted transaction, health). Read by: every role, cli."),
    INDEXER_SCHEMA: schemaName.default("stablepay_indexer").describe("Postgres schema Ponder writes its tables to. A new indexer build or set of networks needs a new one (Ponder refuses a schema another build used). Read by: indexer."),
    INDEXER_VIEWS_SCHEMA: schemaName.default("onchain").describe("Postgres schema of the views Ponder points at its live deployment: what the API and workers read, unchanged across redeploys. Read by: api, worker, indexer, cli."),
    INDEXER_PORT: port.default(42069).describe("Port of the first chain's Ponder HTTP server (health, ready, status), bound to 127.0.0.1; each further EVM chain's Ponder takes the next port. Read by: indexer."),
    INDEXER_CHAIN_ID: z.string().trim().regex(/^\d+$/, "must be a chain id").optional().describe("The one EVM chain a Ponder process indexes. Set by the indexer role for each Ponder it runs (one per chain); not to be set by hand. Read by: indexer."),
    INDEXER_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(5).describe("Blocks: a network is payable only while its ingest is at most this far behind the node's head. Read by: api, worker, indexer, solana."),
    NODE_STALE_AFTER_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(120)
      .describe("Seconds: a (non-local) node whose newest block is older than this is taken to be stuck, and ingest standing at its head to have stalled. Read by: worker."),
    REPLAY_BLOCK_RANGE: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(1_000)
      .describe("Blocks per `eth_getLogs` request when `cli replay` re-reads a range (providers cap the range: 1,000–10,000 is typical). Read by: cli."),
    INDEXER_WATCH_AFTER_EXPIRY_HOURS: z.coerce
      .number()
      .int()
      .min(0)
      .max(24 * 365)
      .default(7 * 24)
      .describe("Whole hours after a payment's expiry its EVM receive address is still watched: late money is recorded and owed back; after that a transfer to it is not ingested (`cli replay` finds it). Read by: indexer."),
    INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES: z.coerce
      .number()
      .int()
      .min(0)
      .max(24 * 365 * 60)
      .default(60)
      .describe("Minutes after expiry an EVM address is still asked for in every block; for the rest of its watch, once per INDEXER_LATE_SCAN_BLOCKS blocks (late money is rare). At least the whole watch: every block. Read by: indexer."),
    INDEXER_LATE_SCAN_BLOCKS: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_LATE_SCAN_BLOCKS)
      .default(30)
      .describe("Blocks per late-money scan on EVM chains. At most 63: what a scan finds lands up to this many blocks below the indexed head, and dispatch looks 64 blocks below its cursor. Changing it needs a new INDEXER_SCHEMA. Read by: indexer."),
  },
);
