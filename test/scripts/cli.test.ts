import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { eq } from "drizzle-orm";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLogger } from "../../config/logger.ts";
import { type Config } from "../../config/index.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { transfersOut } from "../../db/schema/index.ts";
import { findActiveCredential, listCredentials } from "../../db/credentials.ts";
import { settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import { secretMatches } from "../../domain/credentials.ts";
import { commandFlags, commands, usage, UsageError } from "../../scripts/cli/commands.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";

let database: TestDatabase;
let handle: DbHandle;
let config: Config;
const run = (command: string, flags: Record<string, string | boolean> = {}) => commands[command]!({ db: handle.db, config, databaseUrl: database.url, logger: createLogger({ level: "silent" }) }, flags);

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, RPC_URL_8453: "http://127.0.0.1:1" });
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

const merchantIdOf = (output: string) => /: ([0-9a-f-]{36})$/m.exec(output.split("\n")[0]!)![1]!;

describe("operator CLI", () => {
  test("merchant create issues test and live keys, each secret shown once and stored only hashed", async () => {
    const output = await run("merchant create", { name: "Acme", email: "ops@acme.example" });
    const id = merchantIdOf(output);
    const keys = [...output.matchAll(/(?:Public key|API key) \((test|live)\): (\S+)/g)].map((m) => m[2]!);
    const secrets = [...output.matchAll(/API secret \((test|live)\): (\S+)/g)].map((m) => m[2]!);
    expect(keys.map((k) => k.slice(0, 8)).sort()).toEqual(["pk_live_", "pk_test_", "sk_live_", "sk_test_"]);
    expect(secrets).toHaveLength(2);

    const stored = await handle.client`select key_hash, secret_hash from api_credentials where merchant_id = ${id}`;
    const dump = JSON.stringify(stored);
    for (const plain of [...keys, ...secrets]) expect(dump).not.toContain(plain);

    const apiKey = keys.find((k) => k.startsWith("sk_live_"))!;
    const credential = await findActiveCredential(handle.db, apiKey);
    expect(credential?.merchantId).toBe(id);
    expect(secretMatches(secrets[output.indexOf("API secret (test)") < output.indexOf("API secret (live)") ? 1 : 0]!, credential!.secretHash!)).toBe(true);
  });

  // BUG: any currency was stored: one without a rate made every stats read of the merchant a 503.
  test("merchant create takes a settlement currency only with an exchange rate for it", async () => {
    await expect(run("merchant create", { name: "Typo", currency: "usdc" })).rejects.toThrow(/--currency: no exchange rate for USDC/);
    const withRates = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, RATES_STATIC: "EUR=0.92,NGN=1550" });
    const output = await commands["merchant create"]!({ db: handle.db, config: withRates, databaseUrl: database.url, logger: createLogger({ level: "silent" }) }, { name: "Euro", currency: "eur" });
    const [row] = await handle.client`select settlement_currency from merchants where id = ${merchantIdOf(output)}`;
    expect(row.settlement_currency).toBe("EUR");
    expect(merchantIdOf(await run("merchant create", { name: "Dollars", currency: "usd" }))).toBeTruthy();
  });

  test("keys rotate revokes the old key of that kind and mode only", async () => {
    const id = merchantIdOf(await run("merchant create", { name: "Rotator" }));
    const before = await listCredentials(handle.db, id);
    const output = await run("keys rotate", { merchant: id, kind: "secret", mode: "live" });
    const newKey = /API key \(live\): (\S+)/.exec(output)![1]!;
    expect(output).toContain("API secret (live): ");
    const after = await listCredentials(handle.db, id);
    expect(after).toHaveLength(before.length + 1);
    const revoked = after.filter((c) => c.revokedAt !== null);
    expect(revoked.map((c) => [c.kind, c.mode])).toEqual([["secret", "live"]]);
    expect((await findActiveCredential(handle.db, newKey))?.merchantId).toBe(id);
  });

  test("wallet set validates the address for the network and checksums it", async () => {
    const id = merchantIdOf(await run("merchant create", { name: "Wallets" }));
    const lower = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
    expect(await run("wallet set", { merchant: id, network: "base", address: lower })).toBe(
      "Settlement wallet on Base: 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    );
    await expect(run("wallet set", { merchant: id, network: "base", address: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293Bc" })).rejects.toThrow(
      /EIP-55 checksum/,
    );
    await expect(run("wallet set", { merchant: id, network: "solana", address: lower })).rejects.toThrow(/not a valid Solana address/);
    expect(await run("wallet set", { merchant: id, network: "solana", address: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM" })).toContain(
      "(note: this network has no RPC URL configured yet)",
    );
    await expect(run("wallet set", { merchant: id, network: "nope", address: lower })).rejects.toThrow(/unknown network "nope"/);
    // BUG: only the format was checked: the merchant's money would have gone where it cannot come back from.
    const baseUsdc = config.networks.find((n) => n.shortName === "base")!.tokens.find((t) => t.symbol === "USDC")!.address;
    for (const [network, address] of [["base", "0x0000000000000000000000000000000000000000"], ["base", baseUsdc], ["solana", "11111111111111111111111111111111"]]) {
      await expect(run("wallet set", { merchant: id, network: network!, address: address! })).rejects.toThrow(/cannot come back/);
    }
    const wallets = await settlementWalletsByNetwork(handle.db, id);
    expect([...wallets.values()].sort()).toEqual(["0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"]);
  });

  test("return-origins set replaces a mode's list with the API's checks, worded for the flag; list shows both modes", async () => {
    const id = merchantIdOf(await run("merchant create", { name: "Returns" }));
    expect(await run("return-origins set", { merchant: id, mode: "live", origins: "https://Shop.example/, https://b.example" })).toBe(
      "Return origins in live mode: https://b.example, https://shop.example",
    );
    await expect(run("return-origins set", { merchant: id, mode: "live", origins: "https://ok.example,https://shop.example/thanks" })).rejects.toThrow(
      "--origins: an origin has no path, query or fragment (did you mean https://shop.example?)",
    );
    await expect(run("return-origins set", { merchant: id, mode: "staging", origins: "https://a.example" })).rejects.toThrow(UsageError);
    expect(await run("return-origins list", { merchant: id })).toBe("test: (none)\nlive: https://b.example, https://shop.example");
    expect(await run("return-origins set", { merchant: id, mode: "live", origins: "" })).toContain("No return origins in live mode");
    expect(await run("return-origins list", { merchant: id })).toBe("test: (none)\nlive: (none)");
  });

  test("bad flags are usage errors naming the flag", async () => {
    await expect(run("merchant create", {})).rejects.toThrow(new UsageError("--name is required"));
    await expect(run("keys issue", { merchant: "not-a-uuid", kind: "public", mode: "test" })).rejects.toThrow(/--merchant must be a merchant id/);
    await expect(run("keys issue", { merchant: "00000000-0000-4000-8000-000000000000", kind: "public", mode: "test" })).rejects.toThrow(/no merchant/);
    const id = merchantIdOf(await run("merchant create", { name: "Flags" }));
    await expect(run("keys issue", { merchant: id, kind: "private", mode: "test" })).rejects.toThrow("--kind must be one of: public, secret");
  });

  test("transfers: an empty list says so; cancel names what is wrong with its --id", async () => {
    expect(await run("transfers list")).toBe("No sweeps or refunds in flight.");
    await expect(run("transfers cancel")).rejects.toThrow("--id is required");
    await expect(run("transfers cancel", { id: "12" })).rejects.toThrow("--id must be a sweep or refund id");
    // 36 characters that are not a uuid: a usage error, not Postgres's.
    await expect(run("transfers cancel", { id: "-".repeat(36) })).rejects.toThrow("--id must be a sweep or refund id");
    await expect(run("keys issue", { merchant: "a".repeat(36), kind: "public", mode: "test" })).rejects.toThrow(/--merchant must be a merchant id/);
    await expect(run("transfers cancel", { id: "00000000-0000-4000-8000-000000000000" })).rejects.toThrow(
      new UsageError("no sweep or refund with id 00000000-0000-4000-8000-000000000000"),
    );
  });

  test("the npm entry point prints usage and exits 2 on an unknown command", () => {
    const result = spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), "frobnicate"], { encoding: "utf8" });
    expect(result.status).toBe(2);
    expect(result.stdout).toContain("Usage: npm run cli -- <command> [flags]");
  });

  // BUG: `constructor` found Object.prototype's and printed the whole context, the operator's key
  // included; an unknown flag threw a stack trace with exit 1.
  test.each([[["constructor"]], [["toString"]], [["merchant", "list", "--bogus"]], [["merchant", "create", "--name"]]])(
    "the npm entry point answers %p with the usage and exit 2, nothing else",
    (args) => {
      const result = spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), ...args], {
        encoding: "utf8",
        env: { ...process.env, APP_ENV: "test", DATABASE_URL: database.url, OPERATOR_PRIVATE_KEY: `0x${"42".repeat(32)}` },
      });
      expect(result.status).toBe(2);
      expect(result.stdout + result.stderr).toContain("Usage: npm run cli -- <command> [flags]");
      expect(result.stdout + result.stderr).not.toContain("42".repeat(32));
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
  );

  // BUG: the entry point refused --origins (not among its flags), and without it `set` cleared the list.
  test("the npm entry point sets return origins with --origins, and refuses a set without it", async () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), ...args], { encoding: "utf8", env: { ...process.env, APP_ENV: "test", DATABASE_URL: database.url } });
    const id = merchantIdOf(await run("merchant create", { name: "Origins via CLI" }));
    const set = cli("return-origins", "set", "--merchant", id, "--mode", "live", "--origins", "https://shop.example");
    expect({ status: set.status, stderr: set.stderr }).toEqual({ status: 0, stderr: "" });
    expect(set.stdout).toContain("Return origins in live mode: https://shop.example");
    const forgotten = cli("return-origins", "set", "--merchant", id, "--mode", "live");
    expect(forgotten.status).toBe(2);
    expect(forgotten.stderr + forgotten.stdout).toContain("--origins is required");
    expect(await run("return-origins list", { merchant: id })).toBe("test: (none)\nlive: https://shop.example");
  });

  // BUG: every failure of `transfers cancel` exited 2 ("you typed it wrong"), also a node or key that failed.
  test("the npm entry point: transfers cancel exits 2 for a refusal and 1 for what failed on our side", async () => {
    const env: Record<string, string | undefined> = { ...process.env, APP_ENV: "test", DATABASE_URL: database.url, RPC_URL_8453: "http://127.0.0.1:1" };
    delete env.OPERATOR_PRIVATE_KEY;
    const cli = (...args: string[]) => spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), ...args], { encoding: "utf8", env });
    const merchantId = merchantIdOf(await run("merchant create", { name: "Stuck sweeps" }));
    const payment = paymentRowFactory(config)(merchantId, { network: "base", receiveAddress: "0x5555555555555555555555555555555555555555" });
    await insertPaymentRows(handle.db, [payment]);
    const row = { paymentId: payment.id!, kind: "sweep" as const, chainId: payment.chainId, tokenAddress: payment.tokenAddress, toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: 1n };
    const [done, stuck] = await handle.db
      .insert(transfersOut)
      .values([
        { ...row, status: "confirmed" },
        { ...row, status: "broadcast", nonce: 0, rawTx: "0x02" },
      ])
      .returning();

    const refused = cli("transfers", "cancel", "--id", done!.id);
    expect({ status: refused.status, stderr: refused.stderr.trim() }).toEqual({ status: 2, stderr: `transfer ${done!.id} is already confirmed` });
    const failed = cli("transfers", "cancel", "--id", stuck!.id);
    expect({ status: failed.status, stderr: failed.stderr.trim() }).toEqual({ status: 1, stderr: "OPERATOR_PRIVATE_KEY is not set" });
  });

  // BUG: every command took every flag and ignored the ones it does not read, and every word
  // after the command's name: `keys rotate … --dry-run` revoked the live keys, `merchant create
  // --name Acme Corp` created "Acme".
  test("the npm entry point refuses a flag the command does not read, and a stray word, doing nothing", async () => {
    const env = { ...process.env, APP_ENV: "test", DATABASE_URL: database.url };
    const cli = (...args: string[]) => spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), ...args], { encoding: "utf8", env });
    const id = merchantIdOf(await run("merchant create", { name: "Previews" }));
    const before = await listCredentials(handle.db, id);
    const preview = cli("keys", "rotate", "--merchant", id, "--kind", "secret", "--mode", "live", "--dry-run");
    expect({ status: preview.status, stderr: preview.stderr.trim() }).toEqual({ status: 2, stderr: "`keys rotate` takes no --dry-run" });
    expect(await listCredentials(handle.db, id)).toEqual(before);

    const unquoted = cli("merchant", "create", "--name", "Unquoted", "Corp");
    expect({ status: unquoted.status, stderr: unquoted.stderr.trim() }).toEqual({ status: 2, stderr: "unexpected 'Corp' after `merchant create` (quote a value that has spaces)" });
    const [{ count }] = await handle.client`select count(*)::int as count from merchants where name = 'Unquoted'`;
    expect(count).toBe(0);
    expect(cli("replay", "base", "--from", "1", "--to", "2").status).toBe(2);
    // A flag a command does read still works (`replay` and `indexer prune` have --dry-run).
    expect(cli("indexer", "prune", "--dry-run").stderr).not.toContain("takes no");
  });

  test("every command names the flags it reads, and its usage line shows only those", () => {
    for (const name of Object.keys(commands)) {
      expect(commandFlags[name]).toBeDefined();
      const line = usage.split("\n").find((l) => l.trimStart().startsWith(`${name} `) || l.trim() === name);
      const shown = [...(line ?? "").matchAll(/--([a-z-]+)/g)].map((m) => m[1]!);
      expect(shown.every((f) => commandFlags[name]!.includes(f))).toBe(true);
    }
  });

  // BUG: the age shown was since the row's last change, and every fee bump changes it: a sweep stuck
  // for an hour read "for 2m" while the stuck-transfer metric counted it.
  test("transfers list: a broadcast transfer's age runs from its first broadcast, not its last fee bump", async () => {
    const merchantId = merchantIdOf(await run("merchant create", { name: "Ages" }));
    const payment = paymentRowFactory(config)(merchantId, { network: "base", receiveAddress: "0x6666666666666666666666666666666666666666" });
    await insertPaymentRows(handle.db, [payment]);
    const [row] = await handle.db
      .insert(transfersOut)
      .values({ paymentId: payment.id!, kind: "sweep", chainId: payment.chainId, tokenAddress: payment.tokenAddress, toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: 1n, status: "broadcast", nonce: 7, rawTx: "0x02", broadcastAt: new Date(Date.now() - 3_600_000) })
      .returning();
    try {
      expect((await run("transfers list")).split("\n").find((l) => l.startsWith(row!.id))).toContain("nonce 7  for 60m");
    } finally {
      await handle.db.delete(transfersOut).where(eq(transfersOut.id, row!.id));
    }
  });

  // BUG: the CLI found the sandbox's database through its dev-stack.json but not its chains
  // (NETWORKS_FILE is set only for the roles `npm start` spawns): `wallet set --network anvil`
  // was "unknown network", so a merchant made with the CLI could never take a sandbox payment;
  // and with the sandbox stopped, every command died with a stack trace.
  test("the npm entry point in the sandbox: its database and its chains; stopped, one line saying so", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stablepay-cli-sandbox-"));
    const env: Record<string, string | undefined> = { ...process.env, APP_ENV: "development", DATA_DIR: dataDir };
    delete env.DATABASE_URL;
    delete env.NETWORKS_FILE;
    const cli = (...args: string[]) => spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), ...args], { encoding: "utf8", env });
    const usdc = { symbol: "USDC", name: "USD Coin", address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", decimals: 6 };
    writeFileSync(join(dataDir, "networks.local.json"), JSON.stringify({ networks: [{ name: "Anvil", shortName: "anvil", chainId: 31337, type: "evm", isTestnet: true, isLocal: true, requiredConfirmations: 1, tokens: [usdc] }] }));
    writeFileSync(join(dataDir, "dev-stack.json"), JSON.stringify({ databaseUrl: database.url }));
    try {
      const created = cli("merchant", "create", "--name", "Sandbox shop");
      expect({ status: created.status, stderr: created.stderr }).toEqual({ status: 0, stderr: "" });
      const id = merchantIdOf(created.stdout);
      const set = cli("wallet", "set", "--merchant", id, "--network", "anvil", "--address", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
      expect({ status: set.status, stderr: set.stderr }).toEqual({ status: 0, stderr: "" });
      expect(set.stdout).toContain("Settlement wallet on Anvil: 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");

      writeFileSync(join(dataDir, "dev-stack.json"), JSON.stringify({ databaseUrl: "postgres://postgres@127.0.0.1:1/stopped" }));
      const stopped = cli("merchant", "list");
      expect(stopped.status).toBe(1);
      expect(stopped.stderr.trim().split("\n")).toHaveLength(1);
      expect(stopped.stderr).toContain("`npm start`");
      expect(stopped.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("the npm entry point runs a command against DATABASE_URL", () => {
    const result = spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), "merchant", "create", "--name", "Via CLI"], {
      encoding: "utf8",
      env: { ...process.env, APP_ENV: "test", DATABASE_URL: database.url },
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Merchant Via CLI: [0-9a-f-]{36}\n/);
  });
});
