import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, type Subprocess } from "bun";
import { eq } from "drizzle-orm";
import { PublicKey } from "@solana/web3.js";
import { getAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { type Config } from "../../config/index.ts";
import { createLogger } from "../../config/logger.ts";
import { projectRoot } from "../../config/projectRoot.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { issueCredential } from "../../db/credentials.ts";
import { createMerchant } from "../../db/merchants.ts";
import { solanaDepositAddresses } from "../../rails/solana/tables.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { ensureFactories } from "../../rails/bridge/local/relayer/ensureFactories.ts";
import { computeDepositAddress } from "../../rails/evm/settlement/index.ts";
import { stockedMethods } from "../../rails/index.ts";
import { relayerKey, startBridgeChains, type BridgeChains } from "../../harness/bridgeChains.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { customer, intentSignerKey, merchantWallet, operatorKey } from "../../harness/paymentChain.ts";
import { createTestRedis } from "../../harness/redis.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";

/**
 * The acceptance test of "no key that moves money in the API": the API role, started as a
 * real process (`bun scripts/role.ts api`) with only the variables docs/operations.md documents for
 * it — none of OPERATOR_PRIVATE_KEY, SOLANA_OPERATOR_SECRET_KEY, SOLANA_DEPOSIT_SEED or the
 * local relayer's key — creates every kind of payment: an EVM contract payment (its intent,
 * signed by the API's intent signer, settles on chain), an EVM deposit address, a Solana
 * Pay payment, a Solana deposit address (from the pool the worker derived), and a
 * cross-chain payment through the local bridge. And an API handed those secrets anyway
 * ignores them, says so, and does not use them even to learn an address.
 */
let chains: BridgeChains;
let solana: SolanaTestChain;
let database: TestDatabase;
let redis: ReturnType<typeof createTestRedis>;
let handle: DbHandle;
let worker: Config;
let networksFile: string;
const processes: Subprocess[] = [];
const merchant = { publicKey: "", apiKey: "", apiSecret: "" };

const operatorAddress = privateKeyToAccount(operatorKey).address;
const solanaOperatorAddress = () => solana.operator.publicKey.toBase58();

/** Exactly what docs/operations.md's "Keys and where they live" lists for the API role, and nothing else. */
const apiEnv = (port: number): Record<string, string> => ({
  APP_ENV: "test",
  HOST: "127.0.0.1",
  PORT: String(port),
  DATABASE_URL: database.url,
  REDIS_URL: redis.url,
  QUEUE_PREFIX: redis.prefix,
  NETWORKS_FILE: networksFile,
  INTENT_SIGNER_PRIVATE_KEY: intentSignerKey,
  OPERATOR_ADDRESS: operatorAddress,
  SOLANA_OPERATOR_ADDRESS: solanaOperatorAddress(),
  BRIDGE_ADAPTER: "local",
  LOG_LEVEL: "info",
});

/** Starts the API role from the sources with exactly `env`; resolves once it answers, with what it logged. */
async function startApi(env: Record<string, string>) {
  const child = spawn([process.execPath, join(projectRoot, "scripts/role.ts"), "api"], { cwd: projectRoot, env, stdout: "pipe", stderr: "pipe" });
  processes.push(child);
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      const decoder = new TextDecoder();
      const reader = (stream as ReadableStream<Uint8Array>).getReader();
      let rest = "";
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const parts = (rest + decoder.decode(read.value, { stream: true })).split("\n");
        rest = parts.pop()!;
        lines.push(...parts.filter(Boolean));
      }
    })();
  }
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${url}/api/versions`).then((r) => r.ok, () => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`api did not start (exit ${child.exitCode}): ${lines.join("\n")}`);
    await Bun.sleep(100);
  }
  const post = async (path: string, body: Record<string, unknown>) => {
    const response = await fetch(`${url}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json", "x-public-key": merchant.publicKey }, body: JSON.stringify({ orderId: randomUUID(), ...body }) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const health = async () => {
    const response = await fetch(`${url}/api/v1/payments/health`, { headers: { "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret } });
    const body = (await response.json()) as { chains: Array<{ network: string; operator: { address: string; balance: string } | null }> };
    return Object.fromEntries(body.chains.map((c) => [c.network, c.operator]));
  };
  return { url, lines, post, health };
}

beforeAll(async () => {
  [chains, solana, database] = await Promise.all([startBridgeChains({ requiredConfirmations: 2 }), startSolanaTestChain({ finalityDepth: 4 }), createTestDatabase()]);
  redis = createTestRedis();
  const dir = mkdtempSync(join(tmpdir(), "stablepay-api-role-"));
  networksFile = join(dir, "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks: [chains.destination.network, { ...chains.origin.network, name: "Anvil 2" }, solana.network] }));
  // The worker's and the relayer's side, in this process: what they hold, the API does not.
  worker = buildConfig({
    APP_ENV: "test",
    DATABASE_URL: database.url,
    NETWORKS_FILE: networksFile,
    OPERATOR_PRIVATE_KEY: operatorKey,
    SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey,
    SOLANA_DEPOSIT_SEED: randomBytes(32).toString("hex"),
    SOLANA_DEPOSIT_POOL_SIZE: "20",
    SOLANA_DEPOSIT_POOL_REFILL_BELOW: "5",
    BRIDGE_ADAPTER: "local",
    BRIDGE_LOCAL_RELAYER_KEY: relayerKey,
  });
  handle = createDb(database.url, { max: 4 });
  const logger = createLogger({ level: "silent" });
  // As `npm start` stocks the sandbox, and the relayer deploys its factories when it starts.
  for (const { method } of stockedMethods(worker)) await method.replenish({ config: worker, db: handle.db, logger });
  await ensureFactories({ config: worker, db: handle.db, logger });
  const row = await createMerchant(handle.db, { name: "API role merchant" });
  const [publicKey, secret] = await Promise.all([issueCredential(handle.db, row.id, "public", "test"), issueCredential(handle.db, row.id, "secret", "test")]);
  Object.assign(merchant, { publicKey: publicKey.key, apiKey: secret.key, apiSecret: secret.secret! });
  const network = (shortName: string) => worker.networks.find((n) => n.shortName === shortName)!;
  await setSettlementWallet(handle.db, row.id, network("anvil").id, merchantWallet);
  await setSettlementWallet(handle.db, row.id, network("solana-local").id, solana.merchant.publicKey.toBase58());
}, 120_000);

afterAll(async () => {
  for (const p of processes) p.kill("SIGTERM");
  await Promise.all(processes.map((p) => Promise.race([p.exited, Bun.sleep(10_000).then(() => p.kill("SIGKILL"))])));
  await handle?.close();
  await redis?.cleanup();
  await database?.drop();
  await Promise.all([chains?.stop(), solana?.stop()]);
});

describe("the API role with only its own variables", () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  beforeAll(async () => {
    const env = apiEnv(await freePort());
    for (const name of ["OPERATOR_PRIVATE_KEY", "SOLANA_OPERATOR_SECRET_KEY", "SOLANA_DEPOSIT_SEED", "BRIDGE_LOCAL_RELAYER_KEY"]) expect(env).not.toHaveProperty(name);
    api = await startApi(env);
  }, 90_000);

  test("an EVM contract payment: its intent is signed by the intent signer, and the settlement contract takes it on chain", async () => {
    const { status, body } = await api.post("/payments/create", { amount: "12.5", currency: "USDC", network: "anvil" });
    expect(status).toBe(201);
    const payment = body.payment;
    expect(payment.contractAddress).toBe(chains.destination.settlement);
    const usdc = chains.destination.tokens.find((t) => t.symbol === "USDC")!.address;
    const before = await chains.balanceOf(chains.destination, "USDC", merchantWallet);
    // The customer sends what the answer says (approve, then pay with the signed intent).
    for (const tx of payment.transactions as Array<{ to: Address; data: Hex }>) {
      const hash = await chains.destination.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
      expect((await chains.destination.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    }
    expect((await chains.balanceOf(chains.destination, "USDC", merchantWallet)) - before).toBe(12_500_000n);
    expect(usdc).toBe(payment.tokenAddress);
  });

  test("an EVM deposit address: the factory's CREATE2 forwarder for the payment and the merchant's wallet", async () => {
    const { status, body } = await api.post("/deposits/create", { amount: "3", currency: "USDC", network: "anvil" });
    expect(status).toBe(201);
    expect(body.payment.depositAddress).toBe(computeDepositAddress({ factory: chains.destination.factory, paymentId: body.payment.id, merchantWallet: getAddress(merchantWallet) }));
  });

  test("a Solana Pay payment: to the merchant's wallet, with its reference", async () => {
    const { status, body } = await api.post("/payments/create", { amount: "2", currency: "USDC", network: "solana-local" });
    expect(status).toBe(201);
    expect(body.payment.receiveAddress).toBe(solana.merchant.publicKey.toBase58());
    expect(new PublicKey(body.payment.solanaPay.reference).toBase58()).toBe(body.payment.solanaPay.reference);
  });

  test("a Solana deposit address: one the worker derived, claimed for this payment", async () => {
    const { status, body } = await api.post("/deposits/create", { amount: "4", currency: "USDC", network: "solana-local" });
    expect(status).toBe(201);
    const [row] = await handle.db.select().from(solanaDepositAddresses).where(eq(solanaDepositAddresses.address, body.payment.depositAddress));
    expect(row?.paymentId).toBe(body.payment.id);
  });

  test("a cross-chain payment through the local bridge: a deposit address of the relayer's factory on the origin chain", async () => {
    const { status, body } = await api.post("/payments/cross-chain/create", { amount: "25.5", originChainId: 31338, originCurrency: "USDC" });
    expect(status).toBe(201);
    expect(body.payment.relayDepositAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(BigInt(body.payment.amountToSend)).toBeGreaterThan(25_500_000n);
  });

  test("the operators' gas money is reported from their addresses alone", async () => {
    const operators = await api.health();
    expect(operators.anvil).toMatchObject({ address: operatorAddress });
    expect(BigInt(operators.anvil!.balance)).toBeGreaterThan(0n);
    expect(operators["solana-local"]).toMatchObject({ address: solanaOperatorAddress() });
    expect(api.lines.join("\n")).not.toContain("ignored");
  });
});

describe("an API role handed the secrets of other roles", () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  const given = () => ({ OPERATOR_PRIVATE_KEY: operatorKey, SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_DEPOSIT_SEED: randomBytes(32).toString("hex"), BRIDGE_LOCAL_RELAYER_KEY: relayerKey });
  beforeAll(async () => {
    // No operator addresses this time: were a key read, the API would know its address from it.
    const { OPERATOR_ADDRESS: _evm, SOLANA_OPERATOR_ADDRESS: _solana, ...env } = apiEnv(await freePort());
    api = await startApi({ ...env, ...given() });
  }, 90_000);

  test("says it ignores them, by name only", async () => {
    const warning = api.lines.find((line) => line.includes("another role's secret"));
    expect(warning).toBeDefined();
    const logged = JSON.parse(warning!) as { level: number; ignored: string[] };
    expect(logged.ignored.sort()).toEqual(["BRIDGE_LOCAL_RELAYER_KEY", "OPERATOR_PRIVATE_KEY", "SOLANA_DEPOSIT_SEED", "SOLANA_OPERATOR_SECRET_KEY"]);
    for (const secret of Object.values(given())) expect(api.lines.join("\n")).not.toContain(secret.replace(/^0x/, "").slice(0, 24));
    expect(api.lines.join("\n")).not.toContain(solana.operatorSecretKey.slice(0, 24));
  });

  test("and uses none: no operator is known (health, EVM payments, Solana deposits); Solana Pay, which needs none, is still served", async () => {
    expect(await api.health()).toMatchObject({ anvil: null, "solana-local": null });
    for (const path of ["/deposits/create", "/payments/create"]) {
      const evm = await api.post(path, { amount: "3", currency: "USDC", network: "anvil" });
      expect(evm.status).toBe(503);
      expect(evm.body.message).toContain("OPERATOR_ADDRESS");
    }
    const solanaDeposit = await api.post("/deposits/create", { amount: "3", currency: "USDC", network: "solana-local" });
    expect(solanaDeposit.status).toBe(503);
    expect(solanaDeposit.body.message).toContain("SOLANA_OPERATOR_ADDRESS");
    expect((await api.post("/payments/create", { amount: "1", currency: "USDC", network: "solana-local" })).status).toBe(201);
  });
});
