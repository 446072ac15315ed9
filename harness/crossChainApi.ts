import { privateKeyToAccount } from "viem/accounts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { anvilNetwork } from "./fixtures.ts";
import { startFakeRelay } from "./fakeRelay.ts";
import { createTestApi, type TestMerchant } from "./testApi.ts";

export const OPERATOR_KEY = `0x${"11".repeat(32)}` as const;
/** Where Relay refunds customers here: the operator's address. */
export const OPERATOR = privateKeyToAccount(OPERATOR_KEY).address;
export const RELAY_API_KEY = "relay-test-key-0123456789";
/** The merchant's wallets on anvil and anvil-2. */
export const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
export const WALLET_2 = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

/**
 * The API with Relay behind every cross-chain route (a loopback Relay at its testnet base
 * URL: local chains are testnets), two chains whose RPCs are dead on purpose (nothing the
 * API does at creation needs them), no refunds possible on anvil (31337), a merchant with
 * a wallet on both chains and one with none.
 */
export async function startCrossChainApi() {
  const fake = startFakeRelay();
  const api = await createTestApi({
    env: {
      OPERATOR_PRIVATE_KEY: OPERATOR_KEY,
      BRIDGE_ADAPTER: "relay",
      RELAY_TESTNET_API_URL: fake.url,
      RELAY_API_URL: "http://127.0.0.1:9",
      RELAY_API_KEY,
      RELAY_TIMEOUT_MS: "400",
      BRIDGE_REFUND_ADDRESS_31337: "none",
    },
    networks: [
      anvilNetwork("http://127.0.0.1:1"),
      anvilNetwork("http://127.0.0.1:1", { name: "Anvil 2", shortName: "anvil-2", chainId: "31338" }),
    ],
  });
  const merchant = await api.seedMerchant();
  const walletless = await api.seedMerchant("No wallets");
  const network = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!;
  await setSettlementWallet(api.db, merchant.id, network("anvil").id, WALLET);
  await setSettlementWallet(api.db, merchant.id, network("anvil-2").id, WALLET_2);

  let orders = 0;
  const headers = (m: TestMerchant = merchant, extra: Record<string, string> = {}) => ({ "x-public-key": m.publicKey, ...extra });
  return {
    fake,
    api,
    merchant,
    walletless,
    headers,
    /** A creation body (a new orderId each time) with `over` applied. */
    body: (over: Record<string, unknown> = {}) => ({ amount: 25.5, originChainId: 31338, originCurrency: "USDC", orderId: `order-${++orders}`, ...over }),
    create: (b: unknown, options: { headers?: Record<string, string>; path?: string } = {}) =>
      api.request(options.path ?? "/api/v1/payments/cross-chain/create", { headers: options.headers ?? headers(), body: b }),
    quotes: () => fake.at("POST /quote/v2"),
    close: async () => {
      fake.stop();
      await api.close();
    },
  };
}

export type CrossChainApi = Awaited<ReturnType<typeof startCrossChainApi>>;
