/**
 * `bench:x402`'s load, in a process of its own as agents and merchants' servers are: the
 * merchant's resource server (a route behind `@x402/hono`, pointed at the facilitator over
 * HTTP, its calls timed) and the agents paying it (`@x402/fetch` with an `@x402/evm` signer).
 * Given its plan as JSON in `BENCH_X402_PLAN`; prints what it measured as one JSON line.
 * Each agent pays its requests one after another; with `rate`, the agents together start about
 * that many a second (each on a schedule of random gaps), else back to back.
 */
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { Hono } from "hono";
import { createPublicClient, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export type AgentsPlan = {
  facilitatorUrl: string;
  headers: Record<string, string>;
  rpcUrl: string;
  network: `${string}:${string}`;
  payTo: Address;
  asset: Address;
  price: string;
  agentKeys: Hex[];
  perAgent: number;
  /** Requests started a second by all agents together; null: back to back. */
  rate: number | null;
};

export type AgentsResult = { verifyMs: number[]; settleMs: number[]; statuses: Record<string, number>; refusals: Record<string, number>; seconds: number };

const plan = JSON.parse(process.env.BENCH_X402_PLAN!) as AgentsPlan;
const verifyMs: number[] = [];
const settleMs: number[] = [];
const refusals: Record<string, number> = {};
const statuses: Record<string, number> = {};

const facilitator = new HTTPFacilitatorClient({ url: plan.facilitatorUrl, createAuthHeaders: async () => ({ verify: plan.headers, settle: plan.headers, supported: plan.headers }) });
const timed = <A extends unknown[], R>(into: number[], call: (...args: A) => Promise<R>) => async (...args: A) => {
  const t = performance.now();
  try {
    return await call(...args);
  } finally {
    into.push(performance.now() - t);
  }
};
facilitator.verify = timed(verifyMs, facilitator.verify.bind(facilitator));
const settle = timed(settleMs, facilitator.settle.bind(facilitator));
facilitator.settle = async (...args) => {
  const answer = await settle(...args);
  if (!answer.success) refusals[answer.errorReason ?? "?"] = (refusals[answer.errorReason ?? "?"] ?? 0) + 1;
  return answer;
};

const app = new Hono();
app.use(
  paymentMiddleware(
    { "GET /report": { accepts: { scheme: "exact", network: plan.network, payTo: plan.payTo, price: { asset: plan.asset, amount: plan.price, extra: { name: "USD Coin", version: "2" } } }, description: "bench" } },
    new x402ResourceServer(facilitator).register(plan.network, new ExactEvmServerScheme()),
  ),
);
app.get("/report", (c) => c.json({ ok: true }));
const resource = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
const url = `http://127.0.0.1:${resource.port}/report`;
const publicClient = createPublicClient({ transport: http(plan.rpcUrl) });

// An agent's mean pause so that all of them together start `rate` requests a second.
const meanPauseMs = plan.rate ? (plan.agentKeys.length / plan.rate) * 1000 : 0;
const started = performance.now();
await Promise.all(
  plan.agentKeys.map(async (key) => {
    const agent = privateKeyToAccount(key);
    const pay = wrapFetchWithPaymentFromConfig(fetch, {
      schemes: [{ network: plan.network, client: new ExactEvmClientScheme(toClientEvmSigner(agent, publicClient as never)) }],
      spendControls: { allowedAssets: [{ network: plan.network, asset: plan.asset, maxAmountPerPayment: plan.price }] },
    });
    // Its requests start on a schedule of their own (random gaps, `rate` in all), not after the
    // one before plus a pause: what is offered does not fall as the service slows.
    let due = 0;
    for (let i = 0; i < plan.perAgent; i++) {
      if (meanPauseMs > 0) {
        due += -Math.log(1 - Math.random()) * meanPauseMs;
        const wait = due - (performance.now() - started);
        if (wait > 0) await Bun.sleep(wait);
      }
      const response = await pay(url);
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  }),
);
const result: AgentsResult = { verifyMs, settleMs, statuses, refusals, seconds: (performance.now() - started) / 1000 };
resource.stop(true);
console.log(JSON.stringify(result));
process.exit(0);
