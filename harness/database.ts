import { createHash, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import { freePort } from "@stablepay/devchain/freePort";
import { startEmbeddedPostgres } from "../db/embeddedPostgres.ts";
import { migrationsFolder, runMigrations } from "../db/migrate.ts";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

let server: Promise<string> | undefined;

/** The Postgres server tests use: DATABASE_URL (default the local `test` db), else an embedded one. */
function serverUrl(): Promise<string> {
  server ??= (async () => {
    const url = process.env.DATABASE_URL ?? DEFAULT_URL;
    if (await answers(url)) return url;
    const embedded = await startEmbeddedPostgres({
      dataDir: resolve(import.meta.dir, "../.data/test-postgres"),
      port: await freePort(),
      database: "test",
    });
    process.once("exit", () => void embedded.stop());
    return embedded.url;
  })();
  return server;
}

const withDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};

/** Migrations change rarely: migrate once into a template named by their hash, then copy it. */
function templateName(): string {
  const hash = createHash("sha256");
  for (const file of readdirSync(migrationsFolder).sort()) {
    if (file.endsWith(".sql")) hash.update(readFileSync(join(migrationsFolder, file)));
  }
  return `stablepay_tpl_${hash.digest("hex").slice(0, 12)}`;
}

async function ensureTemplate(admin: pg.Client, url: string, template: string) {
  await admin.query("select pg_advisory_lock(726002)");
  try {
    const exists = await admin.query("select 1 from pg_database where datname = $1", [template]);
    if (exists.rowCount === 0) {
      await admin.query(`create database "${template}"`);
      await runMigrations(withDatabase(url, template));
    }
  } finally {
    await admin.query("select pg_advisory_unlock(726002)");
  }
}

export type TestDatabase = { url: string; name: string; drop: () => Promise<void> };

/** An isolated, migrated database for one test file; `drop` removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = await serverUrl();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = `t_${randomBytes(6).toString("hex")}`;
  try {
    const template = templateName();
    await ensureTemplate(admin, url, template);
    await admin.query(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(url, name),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
