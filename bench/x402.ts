/**
 * Benchmark (not a test): `npm run bench:x402 -- [requests=2000] [clients=100]`.
 * `clients` agents (one funded wallet each, `@x402/fetch` with an `@x402/evm` signer) pay a
 * route behind `@x402/hono` pointed at this service's facilitator over HTTP, on anvil, with the
 * API, the worker and the indexer of the tests. Each agent has a daily limit of 3/4 of its
 * requests. Prints verify latency, settle latency and its overhead beyond the chain's own
 * inclusion time (a direct `transferWithAuthorization` sent and awaited, measured alone), paid
 * requests per second, and the counts: each payment recorded once, no authorization settled
 * twice, no agent over its daily limit.
 */
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { parseSignature, toHex, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { testStablecoinAbi } from "@stablepay/devchain/evm";
import { createLogger } from "../config/logger.ts";
import { queryRows } from "../db/client.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { startWorkers } from "../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer } from "../harness/paymentChain.ts";
import { createTestApi } from "../harness/testApi.ts";

const REQUESTS = Number(process.argv[2] ?? 2_000);
const CLIENTS = Number(process.argv[3] ?? 100);
const PER_CLIENT = Math.ceil(REQUESTS / CLIENTS);
const LIMIT_PER_CLIENT = Math.floor((PER_CLIENT * 3) / 4);
const PRICE = 10_000n; // 0.01 USDC
const NETWORK = "eip155:31337" as const;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)] ?? NaN;
const ms = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms (n=${xs.length})`;

const agents = Array.from({ length: CLIENTS }, () => privateKeyToAccount(generatePrivateKey()));
const chain = await startPaymentChain({ requiredConfirmations: 1, alsoFund: agents.map((a) => a.address) });
const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address as Address;
const api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, X402_SETTLE_WAIT_MS: "60000", X402_DAILY_GAS_CAP_WEI: (10n ** 21n).toString() } });
const logger = createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "silent" });
let indexer: Awaited<ReturnType<typeof startTestIndexer>> | undefined;
let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
const servers: Array<ReturnType<typeof Bun.serve>> = [];
try {
  const merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  const secret = { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret };
  for (const agent of agents) {
    const put = await api.request(`/api/v1/merchants/agent-policies/${agent.address}`, { method: "PUT", headers: secret, body: { dailyLimit: `${(Number(PRICE) * LIMIT_PER_CLIENT) / 1e6}` } });
    if (put.status >= 300) throw new Error(`policy: ${put.status} ${JSON.stringify(put.body)}`);
  }
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  const apiServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => api.app.handle(new Request(`http://localhost${new URL(r.url).pathname}`, r)) });
  servers.push(apiServer);

  // The merchant's resource server, its facilitator calls timed.
  const verifyMs: number[] = [];
  const settleMs: number[] = [];
  const facilitator = new HTTPFacilitatorClient({ url: `http://127.0.0.1:${apiServer.port}/api/v1/x402`, createAuthHeaders: async () => ({ verify: secret, settle: secret, supported: secret }) });
  const timed = <A extends unknown[], R>(into: number[], call: (...args: A) => Promise<R>) => async (...args: A) => {
    const t = performance.now();
    try {
      return await call(...args);
    } finally {
      into.push(performance.now() - t);
    }
  };
  facilitator.verify = timed(verifyMs, facilitator.verify.bind(facilitator));
  const settleOne = timed(settleMs, facilitator.settle.bind(facilitator));
  const refusals = new Map<string, number>();
  facilitator.settle = async (...args) => {
    const answer = await settleOne(...args);
    if (!answer.success) refusals.set(answer.errorReason ?? "?", (refusals.get(answer.errorReason ?? "?") ?? 0) + 1);
    return answer;
  };
  const app = new Hono();
  app.use(
    paymentMiddleware(
      { "GET /report": { accepts: { scheme: "exact", network: NETWORK, payTo: chain.settlement, price: { asset: usdc, amount: PRICE.toString(), extra: { name: "USD Coin", version: "2" } } }, description: "bench" } },
      new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmServerScheme()),
    ),
  );
  app.get("/report", (c) => c.json({ ok: true }));
  const resource = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  servers.push(resource);
  const url = `http://127.0.0.1:${resource.port}/report`;

  // The chain's own inclusion time: a transferWithAuthorization sent and awaited, one at a time.
  const inclusionMs: number[] = [];
  const wallet = chain.customerWallet;
  for (let i = 0; i < 30; i++) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const message = { from: customer.address, to: merchantWallet, value: 1n, validAfter: now - 60n, validBefore: now + 600n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
    const signature = await customer.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: usdc },
      types: { TransferWithAuthorization: [{ name: "from", type: "address" }, { name: "to", type: "address" }, { name: "value", type: "uint256" }, { name: "validAfter", type: "uint256" }, { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" }] },
      primaryType: "TransferWithAuthorization",
      message,
    });
    const { v, r, s } = parseSignature(signature);
    const t = performance.now();
    const hash = await wallet.writeContract({ account: customer, chain: null, address: usdc, abi: testStablecoinAbi, functionName: "transferWithAuthorization", args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s] });
    await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    inclusionMs.push(performance.now() - t);
  }

  console.log(`${CLIENTS} agents × ${PER_CLIENT} paid requests (daily limit: ${LIMIT_PER_CLIENT} each)…`);
  const statuses = new Map<number, number>();
  const started = performance.now();
  await Promise.all(
    agents.map(async (agent) => {
      const pay = wrapFetchWithPaymentFromConfig(fetch, {
        schemes: [{ network: NETWORK, client: new ExactEvmClientScheme(toClientEvmSigner(agent, chain.publicClient as never)) }],
        spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: PRICE.toString() }] },
      });
      for (let i = 0; i < PER_CLIENT; i++) {
        const response = await pay(url);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const paid = statuses.get(200) ?? 0;

  const [counts] = await queryRows<{ payments: string; settled: string; authorizations: string; over: string }>(
    api.db,
    sql`select (select count(*) from payments where kind = 'x402') as payments,
               (select count(*) from x402_settlements where status = 'settled') as settled,
               (select count(distinct (chain_id, lower(payer), nonce)) from x402_settlements where status = 'settled') as authorizations,
               (select count(*) from (select agent_id from payments where kind = 'x402' and status not in ('failed', 'cancelled', 'expired')
                  group by agent_id having sum(amount) > ${(PRICE * BigInt(LIMIT_PER_CLIENT)).toString()}::numeric) o) as over`,
  );
  const inclusion = percentile(inclusionMs, 50);
  console.log(`answers: ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(", ")} in ${seconds.toFixed(1)} s`);
  if (refusals.size) console.log(`settles refused: ${[...refusals].map(([r, n]) => `${n}× ${r}`).join(", ")}`);
  console.log(`verify latency (resource server → facilitator): ${ms(verifyMs)}   goal p50 ≤ 5 ms`);
  console.log(`settle latency: ${ms(settleMs)}; chain inclusion alone: p50 ${inclusion.toFixed(1)} ms`);
  console.log(`settle overhead beyond inclusion: p50 ${(percentile(settleMs, 50) - inclusion).toFixed(1)} ms   goal p50 ≤ 20 ms`);
  console.log(`paid requests per second: ${(paid / seconds).toFixed(1)}`);
  console.log(
    `counts: ${paid} served, ${counts!.payments} x402 payments, ${counts!.settled} settled, ${counts!.authorizations} distinct authorizations settled, agents over their daily limit: ${counts!.over}`,
  );
  const ok = Number(counts!.settled) === paid && Number(counts!.authorizations) === paid && Number(counts!.over) === 0 && paid === CLIENTS * LIMIT_PER_CLIENT;
  console.log(ok ? "counts: each payment recorded once, no authorization settled twice, no daily limit exceeded" : "COUNTS DO NOT ADD UP");
  process.exitCode = ok ? 0 : 1;
} finally {
  for (const s of servers) s.stop(true);
  await workers?.close();
  await indexer?.stop();
  await api.close();
  await chain.stop();
}
process.exit();
