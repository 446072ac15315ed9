import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import { sql } from "drizzle-orm";
import { erc20Abi, keccak256, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { transfersOutOf, type TransferOutRow } from "../../db/transfersOut.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startRpcProxy, type InterceptMode, type RpcProxy } from "../../harness/rpcProxy.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 4: "a worker killed mid-sweep → after restart no double sweep and no stranded
 * funds", with a real crash. A real worker process (`bun scripts/role.ts worker`) talks
 * to anvil through a JSON-RPC proxy; the proxy catches its `eth_sendRawTransaction`
 * and the test SIGKILLs the process right there — once before the transaction leaves
 * (drop), once after the chain took it but before the worker heard back (forward). A
 * second worker process then finishes the sweep. No in-process workers run: the child
 * is the only sweeper (and the only reconciler, via its dispatcher).
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const CHAIN_LOCK_CLASS = 726100; // rails/chainLock.ts withChainLock
const operator = privateKeyToAccount(operatorKey).address;

let chain: PaymentChain;
let proxy: RpcProxy;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let usdc: Address;
const children = new Set<WorkerProcess>();

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  proxy = startRpcProxy(chain.anvil.rpcUrl);
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(Promise.all([...children].map((c) => c.kill("SIGKILL"))));
  await bounded(indexer?.stop());
  await bounded(proxy?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
});
// Should afterAll never run (the runner itself killed), the children must not outlive it.
process.once("exit", () => {
  for (const c of children) c.process.kill("SIGKILL");
});

type WorkerProcess = { process: Subprocess; output: () => string; kill: (signal: "SIGKILL" | "SIGTERM") => Promise<void> };

/** A real worker process, configured like the test api (same database, queues, views schema), with its RPC through the proxy. */
function spawnWorker(): WorkerProcess {
  const { config } = api;
  const child = Bun.spawn([process.execPath, "scripts/role.ts", "worker"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? root,
      APP_ENV: "test",
      DATABASE_URL: api.databaseUrl,
      DATABASE_POOL_SIZE: "5",
      REDIS_URL: config.redis.url,
      QUEUE_PREFIX: config.redis.prefix,
      NETWORKS_FILE: chain.networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      INDEXER_SCHEMA: config.indexer.schema,
      INDEXER_VIEWS_SCHEMA: config.indexer.viewsSchema,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
      [`RPC_URL_${chain.network.chainId}`]: proxy.url,
      // Exits on its own if this test process dies without cleaning up.
      STABLEPAY_SUPERVISED: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  let log = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) log = (log + decoder.decode(chunk.value, { stream: true })).slice(-20_000);
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]).catch(() => {});
  const worker: WorkerProcess = {
    process: child,
    output: () => log,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.exited;
      clearTimeout(timer);
      await drained;
      children.delete(worker);
    },
  };
  children.add(worker);
  return worker;
}

/** Polls `check` until it returns a value (not undefined); the error names what was awaited and shows the workers' logs. */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const logs = [...children].map((c) => `--- worker ${c.process.pid}:\n${c.output()}`).join("\n");
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${logs}`);
    }
    await Bun.sleep(50);
  }
}

const headers = () => ({ "x-public-key": merchant.publicKey });
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

let orders = 0;
async function createDeposit(amount: string) {
  const body = { amount, currency: "USDC", network: "anvil", expiresIn: 60, orderId: `sweep-crash-${++orders}` };
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: Address };
}

async function pay(to: Address, units: bigint) {
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

/** Backends holding the per-chain operator lock (a session advisory lock) in the test database. */
const chainLockHolders = () =>
  queryRows<{ pid: number }>(
    api.db,
    sql`select pid from pg_locks
        where locktype = 'advisory' and granted and classid::bigint = ${CHAIN_LOCK_CLASS} and objsubid = 2
          and database = (select oid from pg_database where datname = current_database())`,
  );

const backendAlive = async (pid: number) => (await queryRows(api.db, sql`select 1 from pg_stat_activity where pid = ${pid}`)).length > 0;

/** On chain, the token transfers out of `from` (every one since genesis). */
const transfersFrom = (from: Address) =>
  chain.publicClient.getContractEvents({ address: usdc, abi: erc20Abi, eventName: "Transfer", args: { from }, fromBlock: 0n, toBlock: "latest" });

async function forwardedEvents(paymentId: string) {
  const feed = await api.request("/api/v1/events?limit=100", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
  expect(feed.status).toBe(200);
  return feed.body.events.filter((e: { paymentId: string; type: string }) => e.paymentId === paymentId && e.type === "payment.forwarded");
}

/**
 * One crash: a worker sweeps a completed deposit, is SIGKILLed at its broadcast (as
 * `mode` says), and a second worker process finishes the job.
 */
async function crashMidSweep(mode: InterceptMode, amount: string, units: bigint) {
  const merchantBefore = await balanceOf(merchantWallet);
  const intercepted = proxy.arm(mode);
  const first = spawnWorker();

  // The customer pays; the worker's dispatcher and reconcile complete the payment and
  // enqueue the sweep, which signs, records `broadcast` and then sends — into the trap.
  const deposit = await createDeposit(amount);
  await pay(deposit.depositAddress, units);
  await chain.mine(1);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hit = await Promise.race([
    intercepted,
    first.process.exited.then((code) => Promise.reject(new Error(`worker exited (${code}) before broadcasting:\n${first.output()}`))),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no broadcast within 25 s:\n${first.output()}`)), 25_000))),
  ]).finally(() => clearTimeout(timer));
  const hash = keccak256(hit.rawTx);

  // The worker is now blocked on the unanswered send, inside the chain lock.
  const holders = await chainLockHolders();
  expect(holders).toHaveLength(1);
  await first.kill("SIGKILL");
  expect(first.process.signalCode).toBe("SIGKILL");

  // The crash point: the row was committed as `broadcast` with the very bytes that were sent.
  const crashed = await transfersOutOf(api.db, deposit.id);
  expect(crashed.map((r) => [r.kind, r.status, r.txHash, r.rawTx])).toEqual([["sweep", "broadcast", hash, hit.rawTx]]);
  const nonce = crashed[0]!.nonce!;

  if (mode === "drop") {
    // Nothing left the machine: the chain never saw it, the operator's nonce is unused.
    expect(await chain.publicClient.getTransaction({ hash }).catch(() => null)).toBeNull();
    expect(await chain.publicClient.getTransactionCount({ address: operator, blockTag: "pending" })).toBe(nonce);
    expect(await balanceOf(deposit.depositAddress)).toBe(units);
  } else {
    // The chain took it (anvil mines on arrival) though the worker never heard back.
    expect((hit.upstream as { result?: Hex }).result).toBe(hash);
    await chain.mine(1);
    const receipt = await chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }

  // The killed process's Postgres session goes with its socket, and its lock with it.
  // (The lock can be released a moment before the backend leaves pg_stat_activity: wait for both.)
  await until(
    "the killed worker's chain lock to be released and its backend gone",
    async () => ((await chainLockHolders()).length === 0 && !(await backendAlive(holders[0]!.pid)) ? true : undefined),
    10_000,
  );
  expect(await backendAlive(holders[0]!.pid)).toBe(false);

  // Restart: a second worker, RPC passed straight through, and nothing prompted by hand:
  // the dead worker's job is still `active` in Redis; once its lock lapses the second
  // worker's stall check hands it back, and it runs again.
  proxy.disarm();
  const forwardedBefore = proxy.forwarded.length;
  const second = spawnWorker();
  const [done] = await until<TransferOutRow[]>(
    "the stalled sweep job to be taken up and confirmed by the restarted worker",
    async () => {
      const rows = await transfersOutOf(api.db, deposit.id);
      return rows.some((r) => r.status !== "broadcast" && r.status !== "requested") ? rows : undefined;
    },
    40_000,
  );

  // One sweep, the recorded one, exactly the amount; nothing left behind.
  const rows = await transfersOutOf(api.db, deposit.id);
  expect(rows).toHaveLength(1);
  expect(done).toMatchObject({ kind: "sweep", status: "confirmed", txHash: hash, nonce, amount: units, toAddress: merchantWallet });
  expect(await balanceOf(merchantWallet)).toBe(merchantBefore + units);
  expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  const outflows = await transfersFrom(deposit.depositAddress);
  expect(outflows.map((l) => [l.transactionHash, l.args.to, l.args.value])).toEqual([[hash, merchantWallet, units]]);
  expect(await chain.publicClient.getTransactionCount({ address: operator, blockTag: "pending" })).toBe(nonce + 1);
  expect(await forwardedEvents(deposit.id)).toHaveLength(1);
  // Drop: the restart re-sent the recorded bytes (once); forward: it found the receipt and sent nothing.
  const resent = proxy.forwarded.slice(forwardedBefore).filter((m) => m === "eth_sendRawTransaction");
  expect(resent).toHaveLength(mode === "drop" ? 1 : 0);

  if (process.env.DEBUG_SWEEP_CRASH) console.log(`first:\n${first.output()}\nsecond:\n${second.output()}\nforwarded after restart: ${proxy.forwarded.slice(forwardedBefore).join(",")}`);
  await second.kill("SIGTERM");
  expect(second.process.exitCode).toBe(0);
}

describe("a worker process killed mid-sweep (SIGKILL)", () => {
  test("before the signed transaction left: the restart sends those same bytes, once", async () => {
    await crashMidSweep("drop", "3", 3_000_000n);
  }, 90_000);

  test("after the chain took the transaction, before the worker heard back: the restart only records it", async () => {
    await crashMidSweep("forward", "2", 2_000_000n);
  }, 90_000);
});
