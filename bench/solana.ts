/**
 * Benchmark (not a test): `npm run bench:solana -- [deposits] [latencySamples]`.
 * The Solana rail's ingest on the local chain (litesvm behind the loopback RPC, a slot
 * every 400 ms as on mainnet, in a thread of its own: `solanaChainWorker.ts`) with the real
 * subscriber (on a pool of its own, as the `solana` role), dispatch, reconcile workers and
 * HTTP API, and prints:
 *  - detection latency: transaction confirmed (the node's `signatureSubscribe` at
 *    `confirmed`) → visible on GET /payments/{id}/status, p50/p99;
 *  - ingest throughput with N open deposit accounts (default 1,000), each paid once in
 *    one burst (signed beforehand, then sent): credits/s from the first sent to the last
 *    credited through the websocket path, against the goal of 300/s (issue 44); then the
 *    same through the poller alone (websocket off): what one pass over every watched
 *    account costs.
 */
import { getAssociatedTokenAddressSync, createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from "@solana/spl-token";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { sql } from "drizzle-orm";
import { createLogger } from "../config/logger.ts";
import { createDb, queryRows } from "../db/client.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { startWorkers } from "../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../rails/index.ts";
import { startChainSubscriber } from "../rails/solana/ingest/chainSubscriber.ts";
import type { FileNetworkInput } from "../config/index.ts";
import { createTestApi } from "../harness/testApi.ts";

const N = Number(process.argv[2] ?? 1000);
const SAMPLES = Number(process.argv[3] ?? 100);
/** Issue 44: a burst credited at this rate at least (credits/s, first payment sent → all credited). */
const BURST_GOAL = 300;
const progress = (message: string) => process.env.BENCH_VERBOSE && console.error(`[bench] ${message}`);
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const logger = createLogger({ level: "silent" });

type ChainReady = { network: FileNetworkInput; operatorSecretKey: string; merchant: string; usdc: string; customerSecretKey: number[]; rpcUrl: string; wsUrl: string };
const chainThread = new Worker(new URL("./solanaChainWorker.ts", import.meta.url).href);
const asked = new Map<number, (value: unknown) => void>();
const solana = await new Promise<ChainReady>((resolve) => {
  chainThread.onmessage = (event: MessageEvent<{ ready?: ChainReady; id?: number; value?: unknown }>) => {
    if (event.data.ready) resolve(event.data.ready);
    else asked.get(event.data.id!)?.(event.data.value);
  };
});
let asks = 0;
const askChain = <T>(ask: "subscriptions" | "stop") =>
  new Promise<T>((resolve) => {
    const id = ++asks;
    asked.set(id, resolve as (value: unknown) => void);
    chainThread.postMessage({ id, ask });
  });
const customer = Keypair.fromSecretKey(Uint8Array.from(solana.customerSecretKey));
const api = await createTestApi({
  networks: [solana.network],
  env: {
    SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey,
    LOG_LEVEL: "silent",
    SOLANA_POLL_INTERVAL_MS: "600000",
    SOLANA_HEAD_INTERVAL_MS: "400",
    // Every deposit this run creates is derived before it starts (what a deployment expecting such a burst sets).
    SOLANA_DEPOSIT_POOL_SIZE: String(N + SAMPLES),
    SOLANA_DEPOSIT_POOL_REFILL_BELOW: "1",
  },
});
const merchant = await api.seedMerchant();
const network = api.config.networks.find((n) => n.shortName === "solana-local")!;
await setSettlementWallet(api.db, merchant.id, network.id, solana.merchant);
const workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, transfers: false });
const port = await freePort();
api.app.listen({ hostname: "127.0.0.1", port });
const base = `http://127.0.0.1:${port}/api/v1`;
const headers = { "content-type": "application/json", "x-public-key": merchant.publicKey };
const connection = new Connection(solana.rpcUrl, { commitment: "confirmed", wsEndpoint: solana.wsUrl });
const mint = { address: new PublicKey(solana.usdc) };
const customerAta = getAssociatedTokenAddressSync(mint.address, customer.publicKey);
const credits = async () => Number((await queryRows<{ n: string }>(api.db, sql`select count(*)::text as n from solana_credits`))[0]!.n);

async function createDeposits(count: number, tag: string): Promise<Array<{ id: string; depositAddress: string }>> {
  const out: Array<{ id: string; depositAddress: string }> = [];
  for (let i = 0; i < count; i += 50) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, async (_, j) => {
          const r = await fetch(`${base}/deposits/create`, { method: "POST", headers, body: JSON.stringify({ amount: "1", currency: "USDC", network: "solana-local", orderId: `${tag}-${i + j}` }) });
          if (r.status !== 201) throw new Error(`create ${r.status}: ${await r.text()}`);
          return ((await r.json()) as { payment: { id: string; depositAddress: string } }).payment;
        }),
      )),
    );
  }
  return out;
}

/** A wallet's payment to a deposit address (its token account created on the way), signed, ready to send. */
function signedPayment(depositAddress: string, blockhash: { blockhash: string; lastValidBlockHeight: number }): Buffer {
  const owner = new PublicKey(depositAddress);
  const ata = getAssociatedTokenAddressSync(mint.address, owner, true);
  const tx = new Transaction({ feePayer: customer.publicKey, ...blockhash }).add(
    createAssociatedTokenAccountIdempotentInstruction(customer.publicKey, ata, owner, mint.address),
    createTransferCheckedInstruction(customerAta, mint.address, ata, customer.publicKey, 1_000_000n, 6),
  );
  tx.sign(customer);
  return tx.serialize();
}

/** Sends signed payments, 100 at a time, not awaiting their confirmation. */
async function sendAll(signed: Buffer[]): Promise<void> {
  for (let i = 0; i < signed.length; i += 100) await Promise.all(signed.slice(i, i + 100).map((raw) => connection.sendRawTransaction(raw, { skipPreflight: true })));
}

const pay = (depositAddress: string, blockhash: { blockhash: string; lastValidBlockHeight: number }) =>
  connection.sendRawTransaction(signedPayment(depositAddress, blockhash), { skipPreflight: true });

async function waitUntil(what: string, fn: () => Promise<boolean>, timeoutMs = 300_000) {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await Bun.sleep(20);
  }
}

// The subscriber's own pool, as the `solana` role has in a deployment (the test API's five connections serve the API and the workers).
const solanaDb = createDb(api.databaseUrl, { max: 10 });
let subscriber = startChainSubscriber({ config: api.config, db: solanaDb.db, logger, network, channel: INDEXED_CHANNEL });
try {
  await subscriber.ready;
  // --- latency: one payment at a time, confirmed → visible on the status endpoint
  const samples = await createDeposits(SAMPLES, "latency");
  progress("latency deposits created");
  await subscriber.poll();
  progress(`polled; ${subscriber.websocket!.size()} subscribed here, ${await askChain<number>("subscriptions")} at the node`);
  await waitUntil("subscriptions", async () => (await askChain<number>("subscriptions")) > SAMPLES);
  progress("latency samples subscribed");
  const latencies: number[] = [];
  for (const deposit of samples) {
    progress(`sample ${latencies.length}`);
    const signature = await pay(deposit.depositAddress, await connection.getLatestBlockhash());
    const confirmedAt = await new Promise<number>((resolve) => connection.onSignature(signature, () => resolve(performance.now()), "confirmed"));
    for (;;) {
      const r = await fetch(`${base}/payments/${deposit.id}/status`, { headers });
      const body = (await r.json()) as { payment: { amountReceived: string } };
      if (body.payment.amountReceived !== "0") break;
      await Bun.sleep(2);
    }
    latencies.push(performance.now() - confirmedAt);
  }

  progress("latency done");
  // --- throughput: N deposit accounts open, each paid once in one burst
  const burst = await createDeposits(N, "burst");
  await subscriber.poll();
  await waitUntil("subscriptions", async () => (await askChain<number>("subscriptions")) > SAMPLES + N);
  const before = await credits();
  const blockhash = await connection.getLatestBlockhash();
  // Signed beforehand: the wallets' work, not the service's.
  const signed = burst.map((d) => signedPayment(d.depositAddress, blockhash));
  let t = performance.now();
  await sendAll(signed);
  const sentSeconds = (performance.now() - t) / 1000;
  const creditedWhenSent = (await credits()) - before;
  await waitUntil("every burst credit", async () => (await credits()) >= before + N);
  const wsSeconds = (performance.now() - t) / 1000;
  const burstRate = N / wsSeconds;

  // --- the poller alone: websocket off, N more payments (to the same accounts), one pass finds them
  await subscriber.stop();
  subscriber = startChainSubscriber({ config: api.config, db: solanaDb.db, logger, network, channel: INDEXED_CHANNEL, websocket: false });
  await subscriber.ready;
  const second = await connection.getLatestBlockhash();
  await sendAll(burst.map((d) => signedPayment(d.depositAddress, second)));
  await Bun.sleep(1_000); // confirmed
  const beforePoll = await credits();
  t = performance.now();
  await subscriber.poll();
  const pollSeconds = (performance.now() - t) / 1000;
  const found = (await credits()) - beforePoll;
  t = performance.now();
  await subscriber.poll(); // nothing new: the cost of the backstop on a quiet chain
  const idlePollSeconds = (performance.now() - t) / 1000;

  console.log(
    [
      `Solana ingest on the local chain (400 ms slots), ${N} open deposit accounts:`,
      `  confirmed → visible on GET /payments/{id}/status (${SAMPLES} samples): p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
      `  burst of ${N} payments (sent in ${sentSeconds.toFixed(1)} s) → all credited via websocket: ${wsSeconds.toFixed(1)} s, ${burstRate.toFixed(0)} credits/s (goal ≥ ${BURST_GOAL}/s: ${burstRate >= BURST_GOAL ? "met" : "not met"}); ${creditedWhenSent} credited by the time the last was sent, the other ${N - creditedWhenSent} in ${(wsSeconds - sentSeconds).toFixed(1)} s after it`,
      `  poller alone: one pass over ${N + SAMPLES} watched accounts found ${found} credits in ${pollSeconds.toFixed(1)} s (${(found / pollSeconds).toFixed(0)} credits/s); a pass with nothing new: ${idlePollSeconds.toFixed(1)} s`,
    ].join("\n"),
  );
} finally {
  await subscriber.stop();
  await solanaDb.close();
  await workers.close();
  await api.close();
  await askChain("stop");
  chainThread.terminate();
}
process.exit(0);
