import { spawn, type ChildProcess } from "node:child_process";
import type { Config } from "../config/index.ts";
import { projectRoot as root } from "../config/projectRoot.ts";
import { chainSchema } from "../config/indexer.ts";

/**
 * Runs Ponder (`ponder start`) as a child process with the service's configuration, for one
 * EVM chain (`INDEXER_CHAIN_ID`): one chain's dead node stops only its own Ponder. Each writes
 * to a schema of its own (`INDEXER_SCHEMA`_<chainId>); the indexer role keeps the views schema
 * one face over all of them (rails/evm/readModel/indexedViews.ts), so no `--views-schema` here.
 */
export function spawnIndexer(config: Config, databaseUrl: string, options: { chainId: string; port: number; logLevel: string; env?: Record<string, string> }): ChildProcess {
  return spawn(
    `${root}/node_modules/.bin/ponder`,
    [
      "--root", "indexer",
      "--config", "../ponder.config.ts",
      "--log-format", "json",
      // Ponder logs every indexed block at info; keep that for debugging sessions only.
      "--log-level", options.logLevel === "debug" || options.logLevel === "trace" ? options.logLevel : "warn",
      "start",
      "--schema", chainSchema(config.indexer.schema, options.chainId),
      "--port", String(options.port),
      "--hostname", "127.0.0.1",
    ],
    {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      // Ponder prefers PORT over --port: give it its own, not the API's.
      env: { ...process.env, ...options.env, PORT: String(options.port), INDEXER_CHAIN_ID: options.chainId, DATABASE_URL: databaseUrl, PONDER_TELEMETRY_DISABLED: "true" },
    },
  );
}
