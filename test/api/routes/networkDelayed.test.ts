import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AnvilInstance, startAnvil } from "@stablepay/devchain/evm";
import { createNetworkDelays } from "../../../api/services/networkDelays.ts";
import { createPaymentStreamHub } from "../../../api/services/paymentStreamHub.ts";
import { loadPublicViews } from "../../../api/services/publicPaymentViews.ts";
import { createLogger } from "../../../config/logger.ts";
import { createChainStatusService } from "../../../rails/chainStatus.ts";
import { faultRpcProxy } from "../../../harness/faultRpcProxy.ts";
import { anvilNetwork, blockNumber, createPonderCheckpointTable, mineBlocks, setIndexedBlock } from "../../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../harness/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * Issue 44: the checkout view (`GET /payments/public/{id}`, its stream, and `/pay/{id}`) says
 * `networkDelayed` while the payment's chain is lagging or down as `/payments/health` names
 * it, and stops once the chain recovers; it says nothing about the providers, and many
 * views cost one read of the chain statuses. Anvil sits behind a fault proxy; the indexer's
 * progress is set by hand (`setIndexedBlock`).
 */
// Any addresses: payability checks that the contracts are configured, nothing more.
const SETTLEMENT = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const FACTORY = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";

let anvil: AnvilInstance;
let proxy: Awaited<ReturnType<typeof faultRpcProxy>>;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let paymentId: string;

const indexAtHead = async () => setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "anvil", chainId: 31337 }, await blockNumber(anvil.rpcUrl));
const publicView = async (headers: Record<string, string> = {}) => {
  const response = await api.request(`/api/v1/payments/public/${paymentId}`, { headers });
  expect(response.status).toBe(200);
  return response.body.payment;
};
/** The view once it says `delayed` (the answer is re-read in the background: a moment later). */
async function viewSaying(delayed: boolean, ms = 5_000) {
  const until = Date.now() + ms;
  for (;;) {
    const view = await publicView();
    if (view.networkDelayed === delayed) return view;
    if (Date.now() > until) throw new Error(`networkDelayed still ${view.networkDelayed} after ${ms} ms`);
    await Bun.sleep(100);
  }
}
const anvilState = async () => (await api.request("/api/v1/payments/health")).body.chains.find((c: { network: string }) => c.network === "anvil").state;
const page = async (lang: string) => (await api.request(`/pay/${paymentId}?lang=${lang}`)).body as string;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31337 });
  proxy = await faultRpcProxy(anvil.rpcUrl);
  api = await createTestApi({ networks: [anvilNetwork(proxy.url, { settlementContract: SETTLEMENT, forwarderFactory: FACTORY })] });
  await createPonderCheckpointTable(api.db, api.config.indexer.viewsSchema);
  await indexAtHead();
  merchant = await api.seedMerchant("Acme Coffee");
  other = await api.seedMerchant("Other shop");
  const [row] = await insertPaymentRows(api.db, [paymentRowFactory(api.config)(merchant.id, { receiveAddress: "0x440F6B3AA75B0E839c6E3FBE9E2BDe866813cbea" })]);
  paymentId = row!.id!;
}, 60_000);

afterAll(async () => {
  await api?.close();
  await proxy?.stop();
  await anvil?.stop();
});

describe("networkDelayed on the checkout view", () => {
  test("a chain that is ok: not delayed, and the page's notice is hidden", async () => {
    await viewSaying(false);
    expect(await anvilState()).toBe("ok");
    expect(await page("en")).toMatch(/<div id="network-delayed" class="delayed" role="status" hidden>/);
  });

  test("the indexer 20 blocks behind (lagging): delayed, said in each language; indexed to the head again: not", async () => {
    await mineBlocks(anvil.rpcUrl, 20);
    await viewSaying(true);
    expect(await anvilState()).toBe("lagging");
    for (const [lang, title] of [
      ["en", "Network delayed"],
      ["es", "Red con retraso"],
      ["fr", "Réseau en retard"],
    ]) {
      const html = await page(lang!);
      expect(html).toMatch(/<div id="network-delayed" class="delayed" role="status">/);
      expect(html).toContain(title!);
    }
    await indexAtHead();
    await viewSaying(false);
    expect(await page("en")).toMatch(/<div id="network-delayed" class="delayed" role="status" hidden>/);
  });

  test("the node refusing connections (down): delayed; answering again: not — and the view names no provider", async () => {
    await proxy.inject("refuse");
    try {
      const view = await viewSaying(true);
      expect(await anvilState()).toBe("down");
      const text = JSON.stringify(view);
      expect(text).not.toContain(new URL(proxy.url).host);
      for (const key of ["providers", "state", "error", "rpcUrl", "lag", "headBlock"]) expect(view).not.toHaveProperty(key);
    } finally {
      proxy.heal();
    }
    await indexAtHead();
    await viewSaying(false);
  });

  test("as a stranger would: no key, a public key, another merchant's key all get the same view, and nothing more", async () => {
    await viewSaying(false);
    const none = await publicView();
    const own = await publicView({ "x-public-key": merchant.publicKey });
    const stranger = await publicView({ "x-public-key": other.publicKey, "x-api-key": other.testApiKey, "x-api-secret": other.testApiSecret });
    expect(own).toEqual(none);
    expect(stranger).toEqual(none);
    expect(none.networkDelayed).toBe(false);
  });

  test("the live stream pushes the notice when the chain goes down, and its end when it recovers", async () => {
    const hub = createPaymentStreamHub({
      databaseUrl: api.databaseUrl,
      logger: createLogger({ level: "silent" }),
      load: (ids) => loadPublicViews(api.deps, ids),
      maxStreams: 2,
      refreshIntervalMs: 300,
    });
    const seen: boolean[] = [];
    const unwatch = hub.watch(paymentId, { deliver: (json) => void seen.push(JSON.parse(json).networkDelayed), close: () => {} })!;
    const waitFor = async (delayed: boolean) => {
      const until = Date.now() + 8_000;
      while (seen.at(-1) !== delayed) {
        if (Date.now() > until) throw new Error(`stream never said networkDelayed ${delayed}: ${JSON.stringify(seen)}`);
        await Bun.sleep(100);
      }
    };
    try {
      await waitFor(false);
      await proxy.inject("refuse");
      await waitFor(true);
      proxy.heal();
      await indexAtHead();
      await waitFor(false);
    } finally {
      proxy.heal();
      unwatch();
      await hub.stop();
    }
  }, 30_000);

  test("cheap for a stranger: 50 concurrent views read the chain statuses once, then at most once per refresh", async () => {
    const service = createChainStatusService(api.config, api.db, { cacheMs: 0 });
    let reads = 0;
    const counted = { statuses: (networks: Parameters<typeof service.statuses>[0]) => (reads++, service.statuses(networks)) };
    const networkDelays = createNetworkDelays({ config: api.config, db: api.db, chainStatus: counted }, { refreshMs: 60_000 });
    const deps = { config: api.config, db: api.db, networkDelays };
    const views = await Promise.all(Array.from({ length: 50 }, () => loadPublicViews(deps, [paymentId])));
    expect(views.every((v) => v.get(paymentId)?.networkDelayed === false)).toBe(true);
    expect(reads).toBe(1);
    await Promise.all(Array.from({ length: 50 }, () => loadPublicViews(deps, [paymentId])));
    expect(reads).toBe(1);
  });
});
