/**
 * Benchmark (not a test): `npm run bench:ingest -- [--blocks 60] [--rate 300] [--block-time 2] [--every 1] [--expired 0] [--every-block-minutes 60]`.
 * Mainnet-shaped traffic on a local chain: anvil mines a block every `--block-time`
 * seconds, and a generator fills each with `--rate` Transfers of the configured USDC
 * between addresses the service does not know (Base at peak: ~300 per 2-second block).
 * Meanwhile the real pipeline runs (Ponder indexer, workers, API) and every `--every`
 * blocks a deposit payment is created over HTTP and paid. Prints, over `--blocks` blocks
 * after a warm-up:
 *  - Postgres bytes added per 1,000 unrelated transfers (`pg_database_size`: every schema,
 *    the indexer's sync store included), with the growth per schema;
 *  - indexer lag behind the chain head (blocks), sampled at each block;
 *  - the indexer's CPU seconds per 1,000 blocks (its whole process tree, from /proc);
 *  - receipt (block announced) → payment visible on `GET /payments/{id}/status`, p50/p99.
 * `--rate 0` gives the unloaded figures to compare with. `--expired N` first writes N payments
 * whose expiry fell within the past week (a busy merchant's late-money watch: 10,000 payments
 * a day is ~70,000), and `--every-block-minutes` sets INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES
 * for the indexer (10080, the whole week: every address in every block, as before the late scan).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createPublicClient, erc20Abi, webSocket, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { sql } from "drizzle-orm";
import { createLogger } from "../config/logger.ts";
import { queryRows } from "../db/client.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { anvilAccounts, createTransferGenerator, testStablecoinAbi } from "@stablepay/devchain/evm";
import { freePort } from "@stablepay/devchain/freePort";
import { startWorkers } from "../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer } from "../harness/paymentChain.ts";
import { startRpcProxy } from "../harness/rpcProxy.ts";
import { insertPaymentRows, paymentRowFactory } from "../harness/paymentRows.ts";
import { createTestApi } from "../harness/testApi.ts";
import { processTreeCpuSeconds } from "./lib/processCpu.ts";

const { values: args } = parseArgs({
  options: {
    blocks: { type: "string", default: "60" },
    rate: { type: "string", default: "300" },
    "block-time": { type: "string", default: "2" },
    every: { type: "string", default: "1" },
    warmup: { type: "string", default: "5" },
    expired: { type: "string", default: "0" },
    "every-block-minutes": { type: "string" },
  },
});
const EXPIRED = Number(args.expired);
const BLOCKS = Number(args.blocks);
const RATE = Number(args.rate);
const BLOCK_TIME = Number(args["block-time"]);
const EVERY = Number(args.every);
const WARMUP = Number(args.warmup);
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)] ?? NaN;

const chain = await startPaymentChain({ requiredConfirmations: 3 });
const api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, LOG_LEVEL: "silent" } });
const merchant = await api.seedMerchant();
const network = api.config.networks.find((n) => n.shortName === "anvil")!;
await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;

// A week of expired payments' addresses, still watched for late money (spread over the week, an hour or more past expiry).
if (EXPIRED > 0) {
  const row = paymentRowFactory(api.config);
  const now = Date.now();
  for (let i = 0; i < EXPIRED; i += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, EXPIRED - i) }, (_, j) => {
      const expiresAt = new Date(now - 3_600_000 - ((i + j) / EXPIRED) * (7 * 24 - 2) * 3_600_000);
      return row(merchant.id, { status: "expired", receiveAddress: `0x${randomBytes(20).toString("hex")}`, createdAt: new Date(expiresAt.getTime() - 900_000), expiresAt });
    });
    await insertPaymentRows(api.db, rows);
  }
}

// Generator senders, funded with tokens while the chain still mines on demand.
const generator = createTransferGenerator({ chainId: 31337, token: usdc, senderKeys: anvilAccounts.slice(3, 9) as Hex[], send: (raw) => chain.rpc("eth_sendRawTransaction", [raw]) });
const operator = privateKeyToAccount(operatorKey);
for (const sender of generator.senders) {
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: testStablecoinAbi, functionName: "mint", args: [sender, 10n ** 15n], account: operator, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}
generator.setNonces(await Promise.all(generator.senders.map((address) => chain.publicClient.getTransactionCount({ address }))));

// The indexer reaches the node through a counting proxy: its RPC calls per block are a figure too.
const proxy = startRpcProxy(chain.anvil.rpcUrl);
const proxiedNetworks = join(mkdtempSync(join(tmpdir(), "ingest-")), "networks.json");
writeFileSync(proxiedNetworks, JSON.stringify({ networks: [{ ...chain.network, rpcUrl: proxy.url }] }));
const indexer = await startTestIndexer(api.config, api.databaseUrl, proxiedNetworks, args["every-block-minutes"] ? { INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES: args["every-block-minutes"] } : {});
const workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl });
const port = await freePort();
api.app.listen({ hostname: "127.0.0.1", port });
const base = `http://127.0.0.1:${port}/api/v1`;
const headers = { "content-type": "application/json", "x-public-key": merchant.publicKey };

async function indexedBlock(): Promise<bigint> {
  const [row] = await queryRows<{ n: string }>(api.db, sql`select substring(latest_checkpoint from 27 for 16) as n from onchain._ponder_checkpoint where chain_id = 31337`).catch(() => []);
  return row ? BigInt(row.n) : 0n;
}

async function sizes(): Promise<{ total: number; schemas: Map<string, number> }> {
  const [db] = await queryRows<{ n: string }>(api.db, sql`select pg_database_size(current_database())::text as n`);
  const rows = await queryRows<{ schema: string; n: string }>(api.db, sql`
    select n.nspname as schema, sum(pg_total_relation_size(c.oid))::text as n
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'm', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
    group by 1`);
  return { total: Number(db!.n), schemas: new Map(rows.map((r) => [r.schema, Number(r.n)])) };
}

const blockSeen = new Map<bigint, number>();
const ws = createPublicClient({ transport: webSocket(chain.anvil.wsUrl) });
const latencies: number[] = [];
const lags: bigint[] = [];
let measuring = false;
let blocksSeen = 0;
let unrelated = 0;
let start: { size: Awaited<ReturnType<typeof sizes>>; cpu: number; calls: number } | null = null;
let finished: () => void;
const done = new Promise<void>((resolve) => (finished = resolve));

/** Create a deposit payment, pay it in the next block, and time block → visible on the API. */
async function samplePayment(i: number) {
  const r = await fetch(`${base}/deposits/create`, { method: "POST", headers, body: JSON.stringify({ amount: "1", currency: "USDC", network: "anvil", orderId: `ingest-${i}` }) });
  if (r.status !== 201) throw new Error(`create ${r.status}: ${await r.text()}`);
  const p = ((await r.json()) as { payment: { id: string; depositAddress: Address } }).payment;
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [p.depositAddress, 1_000_000n], account: customer, chain: null });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const mined = blockSeen.get(receipt.blockNumber) ?? performance.now();
  for (;;) {
    const s = (await (await fetch(`${base}/payments/${p.id}/status`, { headers })).json()) as { payment: { status: string } };
    if (s.payment.status !== "pending") break;
    if (performance.now() - mined > 60_000) throw new Error(`payment ${p.id} not visible after 60 s`);
    await Bun.sleep(2);
  }
  return performance.now() - mined;
}

const samples: Promise<void>[] = [];
const unwatch = ws.watchBlockNumber({
  emitOnBegin: false,
  onBlockNumber: (block) => {
    blockSeen.set(block, performance.now());
    blocksSeen++;
    void (async () => {
      if (blocksSeen === WARMUP) {
        start = { size: await sizes(), cpu: processTreeCpuSeconds(indexer.pid), calls: proxy.forwarded.length };
        measuring = true;
      }
      if (measuring && blocksSeen >= WARMUP + BLOCKS) {
        measuring = false;
        finished();
        return;
      }
      if (blocksSeen < WARMUP + BLOCKS) {
        await generator.send(RATE);
        if (measuring) unrelated += RATE;
      }
      if (measuring) {
        lags.push(block - (await indexedBlock()));
        if ((blocksSeen - WARMUP) % EVERY === 0) samples.push(samplePayment(blocksSeen).then((ms) => void latencies.push(ms)));
      }
    })().catch((error) => {
      console.error(error);
      process.exit(1);
    });
  },
});

try {
  await chain.rpc("evm_setAutomine", [false]);
  await chain.rpc("evm_setIntervalMining", [BLOCK_TIME]);
  await done;
  const end = { size: await sizes(), cpu: processTreeCpuSeconds(indexer.pid), calls: proxy.forwarded.length };
  const calls = new Map<string, number>();
  for (const method of proxy.forwarded.slice(start!.calls, end.calls)) calls.set(method, (calls.get(method) ?? 0) + 1);
  await Promise.all(samples);
  unwatch();
  const grown = end.size.total - start!.size.total;
  const perSchema = [...end.size.schemas]
    .map(([schema, bytes]) => [schema, bytes - (start!.size.schemas.get(schema) ?? 0)] as const)
    .filter(([, bytes]) => bytes !== 0)
    .sort((a, b) => b[1] - a[1])
    .map(([schema, bytes]) => `${schema} ${(bytes / 1024).toFixed(0)} KiB`)
    .join(", ");
  const cpu = end.cpu - start!.cpu;
  console.log(
    [
      `blocks: ${BLOCKS} at ${BLOCK_TIME} s, ${RATE} unrelated transfers each (${unrelated} in all), a paid deposit every ${EVERY} block(s); ${EXPIRED} payments expired within the week (late-money watch), asked for in every block until ${args["every-block-minutes"] ?? api.config.indexer.everyBlockAfterExpiryMinutes} min past expiry`,
      `database growth: ${(grown / 1024).toFixed(0)} KiB in all${unrelated ? `, ${((grown / unrelated) * 1000 / 1024).toFixed(1)} KiB per 1,000 unrelated transfers at most (the payments' rows included: subtract a --rate 0 run's growth for theirs alone)` : ""} (${perSchema || "no schema grew"})`,
      `indexer lag: max ${lags.reduce((a, b) => (b > a ? b : a), 0n)} blocks, ${lags.filter((l) => l > 1n).length} of ${lags.length} samples over 1`,
      `indexer CPU: ${cpu.toFixed(2)} s over ${BLOCKS} blocks = ${((cpu / BLOCKS) * 1000).toFixed(1)} s per 1,000 blocks`,
      `indexer RPC over HTTP: ${((end.calls - start!.calls) / BLOCKS).toFixed(2)} calls per block (${[...calls].map(([m, n]) => `${m} ${(n / BLOCKS).toFixed(2)}`).join(", ")}), plus its newHeads websocket subscription`,
      `block → status visible: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (${latencies.length} payments)`,
    ].join("\n"),
  );
} finally {
  await api.app.stop();
  await workers.close();
  await indexer.stop();
  await api.close();
  await proxy.stop();
  await chain.stop();
  // The websocket block watcher's reconnect timer would keep the process alive.
  process.exit(0);
}
