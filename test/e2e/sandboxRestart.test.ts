import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { freePort } from "@stablepay/devchain/freePort";

/**
 * `npm start` stopped and started again on the same data directory (its embedded Postgres
 * keeps the previous run's rows): the local chains start over at block and slot 0 under the
 * same ids, and the Solana chain must take payments at once, as the EVM chains do.
 */
const root = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stablepay-restart-"));
// Embedded PostgreSQL runs as the `postgres` user when we are root: it must reach the folder.
chmodSync(dataDir, 0o755);
const devStackFile = join(dataDir, "dev-stack.json");
let env: Record<string, string | undefined>;
let stack: ChildProcess | undefined;
let output = "";

const until = async <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    await Bun.sleep(250);
  }
  throw new Error(`timed out waiting for ${what}\n--- stack output ---\n${output.slice(-4000)}`);
};

/** Starts `npm start` (scripts/start.ts) and resolves with its dev-stack.json once this start wrote it (a fresh operator token each start). */
async function startSandbox(previous?: { operatorToken: string }): Promise<any> {
  // Its own process group, so a failed test can still take down every child it started.
  stack = spawn(process.execPath, ["scripts/start.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  stack.stdout!.on("data", (d) => (output += d));
  stack.stderr!.on("data", (d) => (output += d));
  return until(
    "dev-stack.json",
    async () => {
      const written = existsSync(devStackFile) ? JSON.parse(readFileSync(devStackFile, "utf8")) : undefined;
      return written && written.operatorToken !== previous?.operatorToken ? written : undefined;
    },
    150_000,
  );
}

async function stopSandbox(): Promise<void> {
  const exited = new Promise<number | null>((r) => stack!.once("exit", (code) => r(code)));
  stack!.kill("SIGINT");
  expect(await exited).toBe(0);
}

beforeAll(async () => {
  env = { ...process.env, PORT: String(await freePort()), INDEXER_PORT: String(await freePort()), DATA_DIR: dataDir, QUEUE_PREFIX: `restart_${Date.now()}`, LOG_LEVEL: "warn" };
  delete env.DATABASE_URL; // the no-configuration path: embedded PostgreSQL, kept in DATA_DIR across starts
  delete env.APP_ENV;
});

afterAll(async () => {
  if (stack && stack.exitCode === null) {
    process.kill(-stack.pid!, "SIGINT");
    await Bun.sleep(5_000);
    try {
      process.kill(-stack.pid!, "SIGKILL");
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The sandbox's API, as a script drives it. */
const apiOf = (devStack: any) => (path: string, body?: unknown) =>
  fetch(`${devStack.baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-public-key": devStack.publicKey, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

const solanaPayable = (api: ReturnType<typeof apiOf>) => async () => {
  const { body } = await api("/api/v1/networks/payable");
  return body.networks?.some((n: { shortName: string }) => n.shortName === "solana-local") ? true : undefined;
};

/** The sandbox's customer pays a Solana deposit address with an unmodified web3.js Connection; resolves once the API says completed. */
async function payOnSolana(devStack: any, api: ReturnType<typeof apiOf>, orderId: string) {
  const { Connection, Keypair, PublicKey } = await import("@solana/web3.js");
  const { getBase58Codec } = await import("@solana/kit");
  const { getAssociatedTokenAddressSync, transferChecked, createAssociatedTokenAccountIdempotent } = await import("@solana/spl-token");
  const chain = devStack.chains.find((c: { shortName: string }) => c.shortName === "solana-local");
  const customer = Keypair.fromSecretKey(new Uint8Array(getBase58Codec().encode(devStack.customerSolanaSecretKey)));
  const connection = new Connection(chain.rpcUrl, "confirmed");
  const mint = new PublicKey(chain.tokens[0].mint);
  const created = await api("/api/v1/deposits/create", { amount: "1.25", currency: "USDC", network: "solana-local", orderId });
  expect(created.status).toBe(201);
  const createdAt = Date.now();
  const depositAta = await createAssociatedTokenAccountIdempotent(connection, customer, mint, new PublicKey(created.body.payment.depositAddress), { commitment: "confirmed" }, undefined, undefined, true);
  await transferChecked(connection, customer, getAssociatedTokenAddressSync(mint, customer.publicKey), mint, depositAta, customer, 1_250_000n, 6, [], { commitment: "confirmed" });
  const completed = await until("the Solana deposit credited and completed", async () => {
    const { body } = await api(`/api/v1/deposits/status/${created.body.payment.id}`);
    return body.payment?.status === "completed" ? body.payment : undefined;
  });
  expect(completed).toMatchObject({ amountReceived: "1.25" });
  return { id: created.body.payment.id as string, createdAt };
}

// BUG: after a restart, solana-local stayed unpayable for about as long as the previous run had
// lasted ("indexed block 2664 is ahead of the chain head 2423"): the local chain started over at
// slot 0 under the same genesis hash, and the previous run's ingest head was kept.
test("a restarted sandbox takes a Solana deposit within a minute of the restart, and credits it", async () => {
  const first = await startSandbox();
  const firstApi = apiOf(first);
  await until("solana-local payable", solanaPayable(firstApi), 90_000);
  const earlier = await payOnSolana(first, firstApi, "before-restart");

  // A long first run, in short: its subscriber's head stands far past anything the next chain reaches soon.
  const db = new pg.Client({ connectionString: first.databaseUrl });
  await db.connect();
  try {
    const { rowCount } = await db.query("update solana_ingest_heads set confirmed_slot = confirmed_slot + 1000000, finalized_slot = finalized_slot + 1000000");
    expect(rowCount).toBe(1);
  } finally {
    await db.end();
  }
  await stopSandbox();

  const second = await startSandbox(first);
  const restartedAt = Date.now();
  const api = apiOf(second);
  // The same database (the merchant and its keys are kept), on a port of this start.
  expect(second.publicKey).toBe(first.publicKey);
  const solanaChain = (s: any) => s.chains.find((c: { shortName: string }) => c.shortName === "solana-local");
  // The same chain id (genesis hash) as before: the notes of the previous chain had to go.
  expect(solanaChain(second).chainId).toBe(solanaChain(first).chainId);

  await until("solana-local payable after the restart", solanaPayable(api), 60_000);
  const health = await api("/api/v1/payments/health");
  const solanaHealth = health.body.chains.find((c: { network: string }) => c.network === "solana-local");
  expect(solanaHealth).toMatchObject({ rpcReachable: true, payable: true });
  expect(JSON.stringify(solanaHealth)).not.toContain("ahead of the chain head");

  const paid = await payOnSolana(second, api, "after-restart");
  expect(paid.createdAt - restartedAt).toBeLessThan(60_000);
  // The previous run's payment keeps its answer.
  expect((await api(`/api/v1/deposits/status/${earlier.id}`)).body.payment).toMatchObject({ status: "completed", amountReceived: "1.25" });

  await stopSandbox();
}, 420_000);
