import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type AnvilInstance, startAnvil } from "@stablepay/devchain/evm";
import { networkIdOf } from "../../config/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import {
  ANVIL_USDC,
  anvilNetwork,
  blockNumber,
  createPonderCheckpointTable,
  mineBlocks,
  setIndexedBlock,
  startDeadRpc,
} from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

let deadRpc: Awaited<ReturnType<typeof startDeadRpc>>;
/** Base and Base Sepolia enabled, on an RPC URL whose connections are refused. */
const env = () => ({
  RPC_URL_8453: deadRpc.url,
  RPC_URL_84532: deadRpc.url,
  NETWORKS_DISABLED: "",
  FORWARDER_FACTORY_8453: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  FORWARDER_FACTORY_84532: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
});

beforeAll(async () => {
  deadRpc = await startDeadRpc();
});
afterAll(async () => {
  await deadRpc?.close();
});

const BASE_ID = "42403a80-d97e-58a7-a969-c6fcf512772e";
const BASE_SEPOLIA_ID = "44cc2066-3c38-5d63-866e-a474bbb89f90";
const ANVIL_ID = "78450c6c-d05d-5e6e-a7ba-384210d29214";

type NetworkView = {
  id: string;
  name: string;
  shortName: string;
  chainId: string;
  type: string;
  logo: string;
  explorerUrl: string | null;
  isTestnet: boolean;
};

const BASE: NetworkView = {
  id: BASE_ID,
  name: "Base",
  shortName: "base",
  chainId: "8453",
  type: "evm",
  logo: "http://127.0.0.1:3000/api/static/networks/base.svg",
  explorerUrl: "https://basescan.org",
  isTestnet: false,
};
const BASE_SEPOLIA: NetworkView = {
  id: BASE_SEPOLIA_ID,
  name: "Base Sepolia",
  shortName: "base-sepolia",
  chainId: "84532",
  type: "evm",
  logo: "http://127.0.0.1:3000/api/static/networks/base-sepolia.svg",
  explorerUrl: "https://sepolia.basescan.org",
  isTestnet: true,
};
const ANVIL: NetworkView = {
  id: ANVIL_ID,
  name: "Anvil",
  shortName: "anvil",
  chainId: "31337",
  type: "evm",
  logo: "http://127.0.0.1:3000/api/static/networks/anvil.svg",
  explorerUrl: null,
  isTestnet: true,
};

const networkRef = ({ id, name, shortName, chainId, type }: NetworkView) => ({ id, name, shortName, chainId, type });

/** Every network the service supports, in catalogue order: what /networks lists whatever the key's mode or RPCs. */
const CATALOGUE = [
  ["ethereum", "evm", false],
  ["base", "evm", false],
  ["polygon", "evm", false],
  ["arbitrum", "evm", false],
  ["optimism", "evm", false],
  ["bsc", "evm", false],
  ["solana", "solana", false],
  ["sepolia", "evm", true],
  ["base-sepolia", "evm", true],
  ["solana-devnet", "solana", true],
] as const;
const SOLANA: NetworkView = {
  id: "f620615e-8d6e-5e95-a93c-3e6cdda92663",
  name: "Solana",
  shortName: "solana",
  chainId: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  type: "solana",
  logo: "http://127.0.0.1:3000/api/static/networks/solana.svg",
  explorerUrl: "https://explorer.solana.com",
  isTestnet: false,
};
const summary = (networks: NetworkView[]) => networks.map((n) => [n.shortName, n.type, n.isTestnet]);

const BASE_STABLECOINS = [
  {
    id: "1c6d2d28-553a-5c4e-b1ea-aadd3e548c93",
    symbol: "USDC",
    contractAddress: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    decimals: 6,
    Network: networkRef(BASE),
  },
  {
    id: "35dda477-f789-5049-8a28-2eb71987cd38",
    symbol: "USDT",
    contractAddress: "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2",
    decimals: 6,
    Network: networkRef(BASE),
  },
];
const BASE_SEPOLIA_USDC = {
  id: "8d397c88-11c7-5356-b4de-1e501962b745",
  symbol: "USDC",
  contractAddress: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  decimals: 6,
  Network: networkRef(BASE_SEPOLIA),
};
const ANVIL_USDC_ENTRY = {
  id: "0525d48b-4048-5399-98d3-53181b81d1db",
  symbol: "USDC",
  contractAddress: ANVIL_USDC,
  decimals: 6,
  Network: networkRef(ANVIL),
};

/** No sweep or refund in flight on a chain. */
const NO_TRANSFERS = { inFlight: 0, oldestSeconds: null, stuck: false };
const NO_REVERTS = { count: 0, lastAt: null, recent: false };

/** The dead-RPC chain as /payments/health reports it; the error is viem's short message. */
const unreachable = (network: string, chainId: string, isTestnet: boolean, requiredConfirmations: number) => ({
  network,
  chainId,
  type: "evm",
  isTestnet,
  rpcReachable: false,
  headBlock: null,
  indexedBlock: null,
  lag: null,
  requiredConfirmations,
  settlementContract: null,
  operator: null,
  transfers: NO_TRANSFERS,
        revertedAfterCompletion: NO_REVERTS,
  payable: false,
  // No provider answers: down; no stall recorded (no worker runs here), nothing open to hold.
  state: "down",
  since: null,
  openPayments: 0,
  heldPayments: 0,
  // The only provider: always in use; scheme and host only.
  providers: [{ provider: deadRpc.url.replace(/\/$/, ""), inUse: true, reason: "only", detail: null, head: null, since: null }],
  error: "HTTP request failed.",
});

describe("before the indexer has created its tables", () => {
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(async () => {
    api = await createTestApi({ env: env() });
    merchant = await api.seedMerchant();
  });
  afterAll(async () => {
    await api?.close();
  });

  test("/networks does not depend on the indexer", async () => {
    const response = await api.request("/api/v1/networks", { headers: { "X-Public-Key": merchant.livePublicKey } });
    expect(response.status).toBe(200);
    expect(summary(response.body.networks)).toEqual(CATALOGUE.map((n) => [...n]));
    expect(response.body.networks[1]).toEqual(BASE);
  });

  // Before Ponder has created `_ponder_checkpoint` (a fresh deployment), nothing is indexed: not a 500.
  test("/payments/health answers 200 with nothing indexed", async () => {
    const response = await api.request("/api/v1/payments/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      status: "degraded",
      chains: [unreachable("base", "8453", false, 10), unreachable("base-sepolia", "84532", true, 3)],
      bridges: { open: 0, unread: 0, oldestUnreadSeconds: null, stuck: 0 },
    });
  });

  test("/networks/payable answers 200 with no networks", async () => {
    const response = await api.request("/api/v1/networks/payable", { headers: { "X-Public-Key": merchant.livePublicKey } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, networks: [] });
  });
});

// Any addresses: payability checks the contracts are configured; their code is tested in test/contracts.
const SETTLEMENT = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const FACTORY = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";

describe("catalogue with a dead RPC and a live anvil chain", () => {
  let anvil: AnvilInstance;
  let api: TestApi;
  let merchant: TestMerchant;
  const live = () => ({ headers: { "X-Public-Key": merchant.livePublicKey } });
  const testMode = () => ({ headers: { "X-Public-Key": merchant.publicKey } });
  const anvilHealth = async () => {
    const response = await api.request("/api/v1/payments/health");
    expect(response.status).toBe(200);
    return response.body.chains.find((c: { network: string }) => c.network === "anvil");
  };

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31337 });
    api = await createTestApi({ env: env(), networks: [anvilNetwork(anvil.rpcUrl, { settlementContract: SETTLEMENT, forwarderFactory: FACTORY })] });
    // The indexer has started (its checkpoint table exists) but has committed nothing yet.
    await createPonderCheckpointTable(api.db, api.config.indexer.viewsSchema);
    merchant = await api.seedMerchant();
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await anvil?.stop();
  });

  describe("GET /networks", () => {
    test("every supported network, mainnets and testnets, EVM and Solana, with or without an RPC here", async () => {
      const response = await api.request("/api/v1/networks", live());
      expect(response.status).toBe(200);
      expect(response.body.success).toBe(true);
      expect(summary(response.body.networks)).toEqual([...CATALOGUE.map((n) => [...n]), ["anvil", "evm", true]]);
      const byName = new Map(response.body.networks.map((n: NetworkView) => [n.shortName, n]));
      // Base and Base Sepolia have an RPC here, Solana none: all listed the same way.
      expect(byName.get("base")).toEqual(BASE);
      expect(byName.get("base-sepolia")).toEqual(BASE_SEPOLIA);
      expect(byName.get("anvil")).toEqual(ANVIL);
      expect(byName.get("solana")).toEqual(SOLANA);
      for (const network of response.body.networks) {
        expect(Object.keys(network).sort()).toEqual(["chainId", "explorerUrl", "id", "isTestnet", "logo", "name", "shortName", "type"]);
      }
    });

    test("the list is the same whatever the key's mode", async () => {
      const liveList = await api.request("/api/v1/networks", live());
      const testList = await api.request("/api/v1/networks", testMode());
      expect(testList.status).toBe(200);
      expect(testList.body).toEqual(liveList.body);
    });

    test("network ids are the stable uuids", () => {
      expect(networkIdOf("evm", "8453")).toBe(BASE_ID);
      expect(networkIdOf("evm", "84532")).toBe(BASE_SEPOLIA_ID);
      expect(networkIdOf("evm", "31337")).toBe(ANVIL_ID);
    });
  });

  describe("GET /networks/stablecoins", () => {
    test("every supported network's tokens, each with its Network, whatever the key's mode", async () => {
      const response = await api.request("/api/v1/networks/stablecoins", live());
      expect(response.status).toBe(200);
      expect(response.body.success).toBe(true);
      // Two tokens on each mainnet, USDC on each testnet, USDC on anvil.
      expect(response.body.stablecoins).toHaveLength(7 * 2 + 3 + 1);
      const on = (shortName: string) => response.body.stablecoins.filter((s: { Network: { shortName: string } }) => s.Network.shortName === shortName);
      expect(on("base")).toMatchObject(BASE_STABLECOINS);
      expect(on("base-sepolia")).toMatchObject([BASE_SEPOLIA_USDC]);
      expect(on("anvil")).toMatchObject([ANVIL_USDC_ENTRY]);
      expect(on("solana").map((s: { symbol: string; contractAddress: string }) => [s.symbol, s.contractAddress])).toEqual([
        ["USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"],
        ["USDT", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"],
      ]);
      for (const entry of response.body.stablecoins) {
        expect(Object.keys(entry.Network).sort()).toEqual(["chainId", "id", "name", "shortName", "type"]);
      }
      expect((await api.request("/api/v1/networks/stablecoins", testMode())).body).toEqual(response.body);
    });

    test("token ids are stable across requests", async () => {
      const first = await api.request("/api/v1/networks/stablecoins", live());
      const second = await api.request("/api/v1/networks/stablecoins", live());
      expect(second.body.stablecoins.map((s: { id: string }) => s.id)).toEqual(first.body.stablecoins.map((s: { id: string }) => s.id));
    });
  });

  describe("GET /merchants/wallets", () => {
    const entry = (network: NetworkView, walletAddress: string, supportedTokens: string[]) => ({
      networkId: network.id,
      networkName: network.name,
      networkShortName: network.shortName,
      networkType: network.type,
      walletAddress,
      isConfigured: walletAddress !== "",
      supportedTokens,
    });

    test("one entry per supported network, whatever the key's mode; configured once a wallet is set", async () => {
      const owner = await api.seedMerchant("Wallet owner");
      const liveKey = { headers: { "X-Public-Key": owner.livePublicKey } };
      const testKey = { headers: { "X-Public-Key": owner.publicKey } };
      const wallets = async (key: { headers: Record<string, string> }) => {
        const response = await api.request("/api/v1/merchants/wallets", key);
        expect(response.status).toBe(200);
        expect(response.body.success).toBe(true);
        return response.body.wallets as Array<ReturnType<typeof entry>>;
      };
      const configured = (list: Array<ReturnType<typeof entry>>) => list.filter((w) => w.isConfigured).map((w) => [w.networkShortName, w.walletAddress]);

      const initial = await wallets(liveKey);
      expect(initial.map((w) => [w.networkShortName, w.networkType])).toEqual([...CATALOGUE.map(([n, type]) => [n, type]), ["anvil", "evm"]]);
      expect(initial[1]).toEqual(entry(BASE, "", ["USDC", "USDT"]));
      expect(initial[8]).toEqual(entry(BASE_SEPOLIA, "", ["USDC"]));
      expect(initial[10]).toEqual(entry(ANVIL, "", ["USDC"]));
      expect(initial[6]).toEqual(entry(SOLANA, "", ["USDC", "USDT"]));
      expect(configured(initial)).toEqual([]);
      expect(await wallets(testKey)).toEqual(initial);

      const baseWallet = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
      await setSettlementWallet(api.db, owner.id, BASE_ID, baseWallet);
      expect((await wallets(liveKey))[1]).toEqual(entry(BASE, baseWallet, ["USDC", "USDT"]));
      // A mainnet's wallet configures that network only, not its testnet.
      expect(configured(await wallets(testKey))).toEqual([["base", baseWallet]]);

      const anvilWallet = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
      await setSettlementWallet(api.db, owner.id, ANVIL_ID, anvilWallet);
      expect(configured(await wallets(testKey))).toEqual([["base", baseWallet], ["anvil", anvilWallet]]);

      // Replacing a wallet shows the new address.
      const replacement = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
      await setSettlementWallet(api.db, owner.id, BASE_ID, replacement);
      expect(configured(await wallets(liveKey))).toEqual([["base", replacement], ["anvil", anvilWallet]]);
    });
  });

  describe("chain health and payability", () => {
    test("a dead RPC: /payments/health reports it unreachable; live /networks/payable is empty", async () => {
      const health = await api.request("/api/v1/payments/health");
      expect(health.status).toBe(200);
      expect(health.headers.get("cache-control")).toBe("no-store");
      expect(health.body.success).toBe(true);
      expect(health.body.status).toBe("degraded");
      expect(health.body.chains.map((c: { network: string }) => c.network)).toEqual(["base", "base-sepolia", "anvil"]);
      expect(health.body.chains[0]).toEqual(unreachable("base", "8453", false, 10));
      expect(health.body.chains[1]).toEqual(unreachable("base-sepolia", "84532", true, 3));

      const payable = await api.request("/api/v1/networks/payable", live());
      expect(payable.status).toBe(200);
      expect(payable.body).toEqual({ success: true, networks: [] });
      const payableCoins = await api.request("/api/v1/networks/payable/stablecoins", live());
      expect(payableCoins.status).toBe(200);
      expect(payableCoins.body).toEqual({ success: true, stablecoins: [] });
    });

    test("an indexed block does not make an unreachable chain payable", async () => {
      await setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "base", chainId: 8453 }, 30_000_000);
      const health = await api.request("/api/v1/payments/health");
      expect(health.body.chains[0]).toEqual({ ...unreachable("base", "8453", false, 10), indexedBlock: "30000000" });
      expect((await api.request("/api/v1/networks/payable", live())).body).toEqual({ success: true, networks: [] });
    });

    test("anvil without indexer progress: reachable at head 0, not payable", async () => {
      expect(await blockNumber(anvil.rpcUrl)).toBe(0n);
      expect(await anvilHealth()).toEqual({
        network: "anvil",
        chainId: "31337",
        type: "evm",
        isTestnet: true,
        rpcReachable: true,
        headBlock: "0",
        indexedBlock: null,
        lag: null,
        requiredConfirmations: 3,
        settlementContract: SETTLEMENT,
        operator: null,
        transfers: NO_TRANSFERS,
        revertedAfterCompletion: NO_REVERTS,
        payable: false,
        state: "down",
        since: null,
        openPayments: 0,
        heldPayments: 0,
        providers: [{ provider: anvil.rpcUrl, inUse: true, reason: "only", detail: null, head: null, since: null }],
        error: "not indexed yet",
      });
      expect((await api.request("/api/v1/networks/payable", testMode())).body).toEqual({ success: true, networks: [] });
      expect((await api.request("/api/v1/networks/payable/stablecoins", testMode())).body).toEqual({ success: true, stablecoins: [] });
    });

    test("anvil indexed at its head: payable and listed", async () => {
      await setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "anvil", chainId: 31337 }, await blockNumber(anvil.rpcUrl));
      expect(await anvilHealth()).toEqual({
        network: "anvil",
        chainId: "31337",
        type: "evm",
        isTestnet: true,
        rpcReachable: true,
        headBlock: "0",
        indexedBlock: "0",
        lag: "0",
        requiredConfirmations: 3,
        settlementContract: SETTLEMENT,
        operator: null,
        transfers: NO_TRANSFERS,
        revertedAfterCompletion: NO_REVERTS,
        payable: true,
        state: "ok",
        since: null,
        openPayments: 0,
        heldPayments: 0,
        providers: [{ provider: anvil.rpcUrl, inUse: true, reason: "only", detail: null, head: null, since: null }],
        error: null,
      });
      const payable = await api.request("/api/v1/networks/payable", testMode());
      expect(payable.status).toBe(200);
      expect(payable.body).toEqual({ success: true, networks: [ANVIL] });
      const coins = await api.request("/api/v1/networks/payable/stablecoins", testMode());
      expect(coins.status).toBe(200);
      expect(coins.body.stablecoins).toMatchObject([ANVIL_USDC_ENTRY]);
      expect(coins.body.stablecoins).toHaveLength(1);
      // Live keys never see the local chain.
      expect((await api.request("/api/v1/networks/payable", live())).body).toEqual({ success: true, networks: [] });
    });

    test(`anvil 5 blocks behind (INDEXER_MAX_LAG_BLOCKS default 5): still payable`, async () => {
      expect(api.config.indexer.maxLagBlocks).toBe(5);
      await mineBlocks(anvil.rpcUrl, 5);
      expect(await anvilHealth()).toMatchObject({ headBlock: "5", indexedBlock: "0", lag: "5", payable: true, error: null });
      expect((await api.request("/api/v1/networks/payable", testMode())).body.networks).toEqual([ANVIL]);
    });

    test("anvil 20 blocks behind: not payable, and dropped from the payable lists", async () => {
      await mineBlocks(anvil.rpcUrl, 15);
      expect(await blockNumber(anvil.rpcUrl)).toBe(20n);
      expect(await anvilHealth()).toEqual({
        network: "anvil",
        chainId: "31337",
        type: "evm",
        isTestnet: true,
        rpcReachable: true,
        headBlock: "20",
        indexedBlock: "0",
        lag: "20",
        requiredConfirmations: 3,
        settlementContract: SETTLEMENT,
        operator: null,
        transfers: NO_TRANSFERS,
        revertedAfterCompletion: NO_REVERTS,
        payable: false,
        state: "lagging",
        since: null,
        openPayments: 0,
        heldPayments: 0,
        providers: [{ provider: anvil.rpcUrl, inUse: true, reason: "only", detail: null, head: null, since: null }],
        error: "indexer 20 blocks behind",
      });
      expect((await api.request("/api/v1/networks/payable", testMode())).body).toEqual({ success: true, networks: [] });
      expect((await api.request("/api/v1/networks/payable/stablecoins", testMode())).body).toEqual({ success: true, stablecoins: [] });
      // The full catalogue is unaffected by payability.
      expect((await api.request("/api/v1/networks", testMode())).body.networks.map((n: NetworkView) => n.shortName)).toContain("anvil");
    });

    test("anvil caught up again: payable again", async () => {
      await setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "anvil", chainId: 31337 }, 20);
      expect(await anvilHealth()).toMatchObject({ headBlock: "20", indexedBlock: "20", lag: "0", payable: true });
      expect((await api.request("/api/v1/networks/payable", testMode())).body.networks).toEqual([ANVIL]);
    });

    test("a stall the worker recorded: lagging since it began, though within the lag now", async () => {
      expect(await anvilHealth()).toMatchObject({ state: "ok", since: null });
      const since = new Date(Date.now() - 60_000);
      await api.db.execute(sql`insert into ingest_watch (chain_id, stalled_since, checked_at) values ('31337', ${since}, now())
        on conflict (chain_id) do update set stalled_since = excluded.stalled_since`);
      try {
        expect(await anvilHealth()).toMatchObject({ state: "lagging", since: since.toISOString(), lag: "0", heldPayments: 0 });
      } finally {
        await api.db.execute(sql`update ingest_watch set stalled_since = null where chain_id = '31337'`);
      }
    });
  });

  describe("credential-free catalogue routes", () => {
    test("GET /deposits/chains lists the enabled EVM networks with their tokens", async () => {
      const response = await api.request("/api/v1/deposits/chains");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        chains: [
          {
            ...BASE,
            requiredConfirmations: 10,
            tokens: [
              { symbol: "USDC", contractAddress: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 },
              { symbol: "USDT", contractAddress: "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2", decimals: 6 },
            ],
          },
          {
            ...BASE_SEPOLIA,
            requiredConfirmations: 3,
            tokens: [{ symbol: "USDC", contractAddress: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 }],
          },
          { ...ANVIL, requiredConfirmations: 3, tokens: [{ symbol: "USDC", contractAddress: ANVIL_USDC, decimals: 6 }] },
        ],
      });
    });

    test("GET /api/versions", async () => {
      const response = await api.request("/api/versions");
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        current: "v1",
        versions: [{ version: "v1", status: "current", basePath: "/api/v1", releasedAt: "2026-11-22" }],
      });
    });

    test("GET /api/static/networks/base.svg is an SVG logo in the network's colour", async () => {
      const response = await api.request("/api/static/networks/base.svg");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/svg+xml");
      expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(response.body).toBe(
        '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><circle cx="32" cy="32" r="32" fill="#0052FF"/><text x="32" y="40" font-family="sans-serif" font-size="22" font-weight="700" fill="#fff" text-anchor="middle">B</text></svg>',
      );
    });

    test("every network's logo URL resolves to an SVG", async () => {
      for (const network of [BASE, BASE_SEPOLIA, ANVIL]) {
        const response = await api.request(new URL(network.logo).pathname);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/svg+xml");
        expect(String(response.body).startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      }
    });

    test("an unknown logo is 404 with the error body", async () => {
      const response = await api.request("/api/static/networks/nowhere.svg");
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: "not_found", message: "No logo for nowhere.svg." });
    });

    test("GET /docs/json is an OpenAPI document of the versioned routes", async () => {
      const response = await api.request("/docs/json");
      expect(response.status).toBe(200);
      expect(response.body.openapi).toMatch(/^3\./);
      expect(response.body.info).toMatchObject({ title: "Stablecoin payment API", version: "v1" });
      const paths = Object.keys(response.body.paths);
      expect(paths).toContain("/api/v1/networks");
      expect(paths).toContain("/api/v1/networks/payable/stablecoins");
      expect(paths).toContain("/api/v1/merchants/wallets");
      expect(paths).toContain("/api/health");
      expect(paths).toContain("/api/versions");
      // The unversioned copies are documented once, under /api/v1.
      expect(paths).not.toContain("/api/networks");
      expect(Object.keys(response.body.paths["/api/v1/networks"])).toEqual(["get"]);
      expect(Object.keys(response.body.components.securitySchemes).sort()).toEqual(["apiKey", "apiSecret", "publicKey"]);
    });
  });
});
