import { spawn, type ChildProcess } from "node:child_process";
import type { Config } from "../config/index.ts";
import { projectRoot as root } from "../config/projectRoot.ts";


/**
 * Runs Ponder (`ponder start`) as a child process with the service's configuration.
 * `--schema` isolates this deployment's tables; `--views-schema` keeps stable names
 * for the API and analysts across redeployments.
 */
export function spawnIndexer(config: Config, databaseUrl: string, options: { port: number; logLevel: string; env?: Record<string, string> }): ChildProcess {
  return spawn(
    `${root}/node_modules/.bin/ponder`,
    [
      "--root", "indexer",
      "--config", "../ponder.config.ts",
      "--log-format", "json",
      // Ponder logs every indexed block at info; keep that for debugging sessions only.
      "--log-level", options.logLevel === "debug" || options.logLevel === "trace" ? options.logLevel : "warn",
      "start",
      "--schema", config.indexer.schema,
      "--views-schema", config.indexer.viewsSchema,
      "--port", String(options.port),
      "--hostname", "127.0.0.1",
    ],
    {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      // Ponder prefers PORT over --port: give it its own, not the API's.
      env: { ...process.env, ...options.env, PORT: String(options.port), DATABASE_URL: databaseUrl, PONDER_TELEMETRY_DISABLED: "true" },
    },
  );
}
