/**
 * Benchmark (not a test): `npm run bench:x402 -- [requests=2000] [clients=100] [rate=20]`.
 * `clients` agents (one funded wallet each, `@x402/fetch` with an `@x402/evm` signer) pay a
 * route behind `@x402/hono` pointed at this service's facilitator over HTTP, on anvil, with the
 * API, the worker and the indexer of the tests; the agents and the resource server run in a
 * process of their own (`x402Agents.ts`), as they do in the world. Twice: first at `rate`
 * requests a second offered by all agents together (the latencies the goals are about: what
 * the service adds when it is not queueing), then with fresh agents paying back to back (the
 * most paid requests a second this machine serves; latency there is queueing: with `clients`
 * agents always waiting, it is clients ÷ throughput). Each agent has a daily limit of 3/4 of
 * its requests. Prints verify latency, settle latency and its overhead beyond the chain's own
 * inclusion time (a direct `transferWithAuthorization` sent and awaited, measured alone), paid
 * requests per second, and the counts: each payment recorded once, no authorization settled
 * twice, no agent over its daily limit.
 */
import { sql } from "drizzle-orm";
import { parseSignature, toHex, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { testStablecoinAbi } from "@stablepay/devchain/evm";
import { createLogger } from "../config/logger.ts";
import { queryRows } from "../db/client.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { startWorkers } from "../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer } from "../harness/paymentChain.ts";
import { createTestApi } from "../harness/testApi.ts";
import type { AgentsPlan, AgentsResult } from "./x402Agents.ts";

const REQUESTS = Number(process.argv[2] ?? 2_000);
const CLIENTS = Number(process.argv[3] ?? 100);
const RATE = Number(process.argv[4] ?? 20);
const PER_CLIENT = Math.ceil(REQUESTS / CLIENTS);
const LIMIT_PER_CLIENT = Math.floor((PER_CLIENT * 3) / 4);
const PRICE = 10_000n; // 0.01 USDC
const NETWORK = "eip155:31337" as const;
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)] ?? NaN;
const ms = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms (n=${xs.length})`;

// Fresh agents for each run: the second's daily limits are untouched by the first's payments.
const runs = [
  { name: `${CLIENTS} agents at ~${RATE} requests/s offered`, rate: RATE as number | null },
  { name: `${CLIENTS} agents back to back`, rate: null },
].map((run) => ({ ...run, agents: Array.from({ length: CLIENTS }, () => generatePrivateKey()) }));
const addresses = runs.flatMap((r) => r.agents.map((key) => privateKeyToAccount(key).address));
const chain = await startPaymentChain({ requiredConfirmations: 1, alsoFund: addresses });
const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address as Address;
// A gas cap no merchant of this size would be given, so that none of the load is refused for it.
const api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, X402_SETTLE_WAIT_MS: "60000", X402_DAILY_GAS_CAP_WEI: (10n ** 21n).toString() } });
const logger = createLogger({ level: process.env.BENCH_LOG_LEVEL ?? "silent" });
let indexer: Awaited<ReturnType<typeof startTestIndexer>> | undefined;
let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
let apiServer: ReturnType<typeof Bun.serve> | undefined;
let allOk = true;
try {
  const merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  const secret = { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret };
  for (const address of addresses) {
    const put = await api.request(`/api/v1/merchants/agent-policies/${address}`, { method: "PUT", headers: secret, body: { dailyLimit: `${(Number(PRICE) * LIMIT_PER_CLIENT) / 1e6}` } });
    if (put.status >= 300) throw new Error(`policy: ${put.status} ${JSON.stringify(put.body)}`);
  }
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  apiServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => api.app.handle(new Request(`http://localhost${new URL(r.url).pathname}`, r)) });

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
  const inclusion = percentile(inclusionMs, 50);
  console.log(`chain inclusion alone (a transferWithAuthorization sent and its receipt read): p50 ${inclusion.toFixed(1)} ms`);

  for (const run of runs) {
    console.log(`\n${run.name}: ${PER_CLIENT} paid requests each (daily limit: ${LIMIT_PER_CLIENT} each)…`);
    const plan: AgentsPlan = {
      facilitatorUrl: `http://127.0.0.1:${apiServer.port}/api/v1/x402`,
      headers: secret,
      rpcUrl: chain.anvil.rpcUrl,
      network: NETWORK,
      payTo: chain.settlement as Address,
      asset: usdc,
      price: PRICE.toString(),
      agentKeys: run.agents,
      perAgent: PER_CLIENT,
      rate: run.rate,
    };
    const child = Bun.spawn(["bun", new URL("./x402Agents.ts", import.meta.url).pathname], { env: { ...process.env, BENCH_X402_PLAN: JSON.stringify(plan) }, stdout: "pipe", stderr: "inherit" });
    const output = await new Response(child.stdout).text();
    if ((await child.exited) !== 0) throw new Error(`the agents' process failed: ${output}`);
    const result = JSON.parse(output.trim().split("\n").at(-1)!) as AgentsResult;
    const paid = result.statuses["200"] ?? 0;
    const ids = run.agents.map((key) => privateKeyToAccount(key).address);
    const [counts] = await queryRows<{ payments: string; settled: string; authorizations: string; over: string }>(
      api.db,
      sql`with mine as (select * from payments where kind = 'x402' and agent_id = any(${sql.param(ids)}::text[]))
          select (select count(*) from mine) as payments,
                 (select count(*) from x402_settlements s join mine on mine.id = s.payment_id where s.status = 'settled') as settled,
                 (select count(distinct (s.chain_id, lower(s.payer), s.nonce)) from x402_settlements s join mine on mine.id = s.payment_id where s.status = 'settled') as authorizations,
                 (select count(*) from (select agent_id from mine where status not in ('failed', 'cancelled', 'expired')
                    group by agent_id having sum(amount) > ${(PRICE * BigInt(LIMIT_PER_CLIENT)).toString()}::numeric) o) as over`,
    );
    console.log(`answers: ${Object.entries(result.statuses).map(([s, n]) => `${n}× ${s}`).join(", ")} in ${result.seconds.toFixed(1)} s`);
    if (Object.keys(result.refusals).length) console.log(`settles refused: ${Object.entries(result.refusals).map(([r, n]) => `${n}× ${r}`).join(", ")}`);
    const goals = run.rate !== null;
    console.log(`verify latency (resource server → facilitator): ${ms(result.verifyMs)}${goals ? "   goal p50 ≤ 5 ms" : ""}`);
    console.log(`settle latency: ${ms(result.settleMs)}`);
    console.log(`settle overhead beyond inclusion: p50 ${(percentile(result.settleMs, 50) - inclusion).toFixed(1)} ms${goals ? "   goal p50 ≤ 20 ms" : ""}`);
    console.log(`paid requests per second: ${(paid / result.seconds).toFixed(1)}${goals ? " (as offered)" : " (the most this machine serves)"}`);
    console.log(`counts: ${paid} served, ${counts!.payments} x402 payments, ${counts!.settled} settled, ${counts!.authorizations} distinct authorizations settled, agents over their daily limit: ${counts!.over}`);
    const ok = Number(counts!.payments) === paid && Number(counts!.settled) === paid && Number(counts!.authorizations) === paid && Number(counts!.over) === 0 && paid === CLIENTS * LIMIT_PER_CLIENT;
    console.log(ok ? "counts: each payment recorded once, no authorization settled twice, no daily limit exceeded" : "COUNTS DO NOT ADD UP");
    allOk &&= ok;
  }
  process.exitCode = allOk ? 0 : 1;
} finally {
  apiServer?.stop(true);
  await workers?.close();
  await indexer?.stop();
  await api.close();
  await chain.stop();
}
process.exit();
