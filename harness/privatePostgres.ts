import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@stablepay/devchain/freePort";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../db/embeddedPostgres.ts";
import { runMigrations } from "../db/migrate.ts";

/**
 * An embedded PostgreSQL of a test's own on a free port (never the machine's shared
 * server), migrated, which the test may stop (a fast shutdown: SIGINT to the postmaster)
 * and start again on the same port and data.
 */
export type PrivatePostgres = {
  url: string;
  /** Fast shutdown: sessions are terminated (57P01), new ones refused (57P03, then ECONNREFUSED). */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops it and deletes its data. */
  destroy: () => Promise<void>;
};

export async function startPrivatePostgres(options: { migrate?: Parameters<typeof runMigrations>[1] } = {}): Promise<PrivatePostgres> {
  const dataDir = mkdtempSync(join(tmpdir(), "stablepay-pg-"));
  const port = await freePort();
  let handle: EmbeddedPostgresHandle | null = await startEmbeddedPostgres({ dataDir, port, database: "faults" });
  const url = handle.url;
  await runMigrations(url, options.migrate);
  const stop = async () => {
    const h = handle;
    handle = null;
    await h?.stop();
  };
  process.once("exit", () => void handle?.stop());
  return {
    url,
    stop,
    start: async () => {
      handle = await startEmbeddedPostgres({ dataDir, port, database: "faults" });
    },
    destroy: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
