import { afterAll, beforeAll, expect, test } from "bun:test";
import { encodeFunctionData, erc20Abi } from "viem";
import { FIRST_TIME_RECIPIENT } from "../../../../rails/bridge/local/fillCost.ts";
import { relayerAddress, relayerKey, startBridgeChains, type BridgeChains } from "../../../../harness/bridgeChains.ts";
import { operatorKey } from "../../../../harness/paymentChain.ts";
import { createTestApi, type TestApi } from "../../../../harness/testApi.ts";

/**
 * `GET /payments/cross-chain/sources` lists the local bridge's minimum per route, read from
 * the destination chain (its gas price, a transfer's gas). The route needs no credentials:
 * however often a stranger asks, the chain is asked at most every 15 s.
 */
let chains: BridgeChains;
/** A loopback JSON-RPC proxy in front of anvil that counts every method asked (refused ones too) and can refuse `eth_gasPrice` (429). */
let proxy: { url: string; asked: string[]; refuseGasPrice: boolean; stop: () => void };

function countingProxy(upstream: string): typeof proxy {
  const state = { asked: [] as string[], refuseGasPrice: false };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const text = await request.text();
      const parsed = JSON.parse(text) as { method: string } | Array<{ method: string }>;
      const methods = (Array.isArray(parsed) ? parsed : [parsed]).map((c) => c.method);
      state.asked.push(...methods);
      if (state.refuseGasPrice && methods.includes("eth_gasPrice")) return new Response("Too Many Requests", { status: 429 });
      const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: text });
      return new Response(await answer.text(), { status: answer.status, headers: { "content-type": "application/json" } });
    },
  });
  return Object.assign(state, { url: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) });
}
let api: TestApi;

beforeAll(async () => {
  chains = await startBridgeChains();
  // The merchant's chain (anvil) behind a proxy that counts what reaches it.
  proxy = countingProxy(chains.destination.anvil.rpcUrl);
  api = await createTestApi({
    networks: [{ ...chains.destination.network, rpcUrl: proxy.url }, { ...chains.origin.network, name: "Anvil 2" }],
    env: { OPERATOR_PRIVATE_KEY: operatorKey, BRIDGE_ADAPTER: "local", BRIDGE_LOCAL_RELAYER_KEY: relayerKey, BRIDGE_LOCAL_FEE_BPS: "10", BRIDGE_LOCAL_NATIVE_USD: "2" },
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
  proxy?.stop();
  await chains?.stop();
});

const sources = () => api.request("/api/v1/payments/cross-chain/sources");
const count = (method: string) => proxy.asked.filter((m) => m === method).length;

test("each route's minimum, from the destination's gas price and a transfer's gas; a stranger's many calls ask the chain once", async () => {
  const answers = await Promise.all(Array.from({ length: 30 }, sources));
  for (let i = 0; i < 10; i++) answers.push(await sources());
  expect(answers.every((a) => a.status === 200)).toBe(true);
  expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);

  const bySource = Object.fromEntries(answers[0]!.body.sources.map((s: { shortName: string; routes: unknown }) => [s.shortName, s.routes]));
  // Into anvil (behind the proxy): the relayer's 0.1% must cover the gas of a transfer to a first-time holder at anvil's price, its coin at $2.
  const gasPrice = await chains.destination.publicClient.getGasPrice();
  const gas = await chains.destination.publicClient.estimateGas({
    account: relayerAddress,
    to: chains.destination.tokens.find((t) => t.symbol === "USDC")!.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [FIRST_TIME_RECIPIENT, 1n] }),
  });
  const cost = (gas * gasPrice * 2n + 10n ** 12n - 1n) / 10n ** 12n; // USDC units, rounded up
  const minimum = cost * 1_000n; // its fee is 10 bps of the amount
  expect(bySource["anvil-2"]).toEqual([{ destination: "anvil", minimumAmount: (Number(minimum) / 1e6).toString() }]);
  expect(bySource.anvil).toEqual([{ destination: "anvil-2", minimumAmount: expect.stringMatching(/^0\.\d+$/) }]);

  // 40 calls: anvil was asked its gas price once, and a transfer's gas once per token (USDC, USDT, DAI).
  expect(count("eth_gasPrice")).toBe(1);
  expect(count("eth_estimateGas")).toBe(3);
});

test("a destination that does not answer: the route's minimum is null (unknown now), the answer still 200, and the chain is not asked again at once", async () => {
  // Past the 15 s a gas price is kept, with the chain refusing it (a rate-limited provider).
  await Bun.sleep(15_500);
  proxy.refuseGasPrice = true;
  try {
    const before = count("eth_gasPrice");
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await sources());
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const routes = answers.map((a) => a.body.sources.find((s: { shortName: string }) => s.shortName === "anvil-2").routes);
    expect(routes.every((r) => JSON.stringify(r) === JSON.stringify([{ destination: "anvil", minimumAmount: null }]))).toBe(true);
    expect(count("eth_gasPrice") - before).toBe(1);
  } finally {
    proxy.refuseGasPrice = false;
  }
}, 30_000);
