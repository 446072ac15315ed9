import { buildConfig, redactConfig } from "../../plugins/config.ts";
import { describe, expect, test } from "bun:test";
import { bridgeAdapterFor, ConfigError, type Config } from "../../config/index.ts";
import { RELAY_MAINNET_URL, RELAY_TESTNET_URL } from "../../rails/bridge/relay/index.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";

const KEY = `0x${"22".repeat(32)}` as const;
const local = [anvilNetwork("http://127.0.0.1:8545"), anvilNetwork("http://127.0.0.1:8546", { name: "Anvil 2", shortName: "anvil-2", chainId: "31338" })];
const build = (env: Record<string, string>) => buildConfig({ APP_ENV: "test", RPC_URL_8453: "http://base.example", RPC_URL_1: "http://eth.example", ...env }, { extraNetworks: local });
const net = (config: Config, shortName: string) => config.networks.find((n) => n.shortName === shortName)!;
const route = (config: Config, from: string, to: string) => bridgeAdapterFor(config.bridge, net(config, from), net(config, to));

function rejects(env: Record<string, string>): string {
  try {
    build(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("bridge configuration", () => {
  test("defaults: no bridge, Relay's own base URLs, no refund address but the operator's", () => {
    const config = build({});
    expect(config.bridge).toMatchObject({ defaultAdapter: null, routes: [], refundAddresses: {}, defaultRefundAddress: null, pollIntervalMs: 5_000, local: null });
    expect(config.bridge.relay).toEqual({ mainnetUrl: RELAY_MAINNET_URL, testnetUrl: RELAY_TESTNET_URL, apiKey: null, timeoutMs: 10_000, depositLagMs: 60_000 });
    expect(route(config, "anvil-2", "anvil")).toBeNull();
  });

  test("BRIDGE_ADAPTER serves every route; never the same chain, never test with real money", () => {
    const config = build({ BRIDGE_ADAPTER: "relay" });
    expect(route(config, "anvil-2", "anvil")).toBe("relay");
    expect(route(config, "base", "ethereum")).toBe("relay");
    expect(route(config, "anvil", "anvil")).toBeNull();
    expect(route(config, "anvil", "base")).toBeNull();
    expect(route(config, "base", "anvil")).toBeNull();
  });

  test("BRIDGE_ROUTES entries win in order, by short name or chain id, with * and none", () => {
    const config = build({ BRIDGE_ADAPTER: "relay", BRIDGE_LOCAL_RELAYER_KEY: KEY, BRIDGE_ROUTES: "anvil-2>anvil=local, 31337>*=none, *>1=relay" });
    expect(config.bridge.routes).toEqual([
      { origin: "31338", destination: "31337", adapter: "local" },
      { origin: "31337", destination: "*", adapter: null },
      { origin: "*", destination: "1", adapter: "relay" },
    ]);
    expect(route(config, "anvil-2", "anvil")).toBe("local");
    expect(route(config, "anvil", "anvil-2")).toBeNull();
    expect(route(config, "base", "ethereum")).toBe("relay");
    expect(config.bridge.local).toEqual({ relayerPrivateKey: KEY, feeBps: 10, confirmations: 1, pollMs: 1_000 });
  });

  test("refund addresses per origin chain (chain id or short name), `none` for no refunds there", () => {
    const config = build({ BRIDGE_REFUND_ADDRESS: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8", BRIDGE_REFUND_ADDRESS_8453: "none", BRIDGE_REFUND_ADDRESS_ANVIL_2: "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc" });
    expect(config.bridge.defaultRefundAddress).toBe("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    expect(config.bridge.refundAddresses).toEqual({ "8453": null, "31338": "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" });
  });

  test.each([
    [{ BRIDGE_ADAPTER: "wormhole" }, "BRIDGE_ADAPTER:"],
    [{ BRIDGE_ROUTES: "anvil-2 to anvil" }, "BRIDGE_ROUTES:"],
    [{ BRIDGE_ROUTES: "mars>anvil=relay" }, "BRIDGE_ROUTES:"],
    [{ BRIDGE_ROUTES: "anvil-2>anvil=teleport" }, "BRIDGE_ROUTES:"],
    [{ BRIDGE_ADAPTER: "local" }, "BRIDGE_LOCAL_RELAYER_KEY:"],
    [{ BRIDGE_ROUTES: "*>*=local" }, "BRIDGE_LOCAL_RELAYER_KEY:"],
    [{ BRIDGE_LOCAL_RELAYER_KEY: "0x12" }, "BRIDGE_LOCAL_RELAYER_KEY:"],
    [{ BRIDGE_REFUND_ADDRESS_8453: "0xnope" }, "BRIDGE_REFUND_ADDRESS_8453:"],
    [{ BRIDGE_REFUND_ADDRESS: "nope" }, "BRIDGE_REFUND_ADDRESS:"],
    // One letter's case flipped in a checksummed address: a typo, refused (it used to fall back to the operator's address).
    [{ BRIDGE_REFUND_ADDRESS: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8" }, "BRIDGE_REFUND_ADDRESS:"],
    [{ BRIDGE_REFUND_ADDRESS_8453: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8" }, "BRIDGE_REFUND_ADDRESS_8453:"],
    [{ RELAY_API_URL: "ftp://relay" }, "RELAY_API_URL:"],
    [{ BRIDGE_LOCAL_FEE_BPS: "5000" }, "BRIDGE_LOCAL_FEE_BPS:"],
    [{ BRIDGE_LOCAL_NATIVE_USD: "0" }, "BRIDGE_LOCAL_NATIVE_USD:"],
    [{ BRIDGE_LOCAL_NATIVE_USD: "-2" }, "BRIDGE_LOCAL_NATIVE_USD:"],
    [{ BRIDGE_LOCAL_NATIVE_USD: "2.1234567" }, "BRIDGE_LOCAL_NATIVE_USD:"],
    [{ BRIDGE_LOCAL_NATIVE_USD: "two" }, "BRIDGE_LOCAL_NATIVE_USD:"],
  ])("%o is refused naming the variable", (env, variable) => {
    expect(rejects(env as Record<string, string>)).toStartWith(variable);
  });

  test("the local chains' native coin is priced at BRIDGE_LOCAL_NATIVE_USD (default 2 US dollars), a normalised decimal", () => {
    expect(build({}).bridge.localNativeUsd).toBe("2");
    expect(build({ BRIDGE_LOCAL_NATIVE_USD: " 2500.50 " }).bridge.localNativeUsd).toBe("2500.5");
    expect(build({ BRIDGE_LOCAL_NATIVE_USD: "0.000001" }).bridge.localNativeUsd).toBe("0.000001");
  });

  test("secrets are redacted from the loggable config", () => {
    const redacted = redactConfig(build({ BRIDGE_ADAPTER: "local", BRIDGE_LOCAL_RELAYER_KEY: KEY, RELAY_API_KEY: "secret-relay-key" }));
    expect(JSON.stringify(redacted)).not.toContain("secret-relay-key");
    expect(JSON.stringify(redacted)).not.toContain(KEY.slice(2));
  });
});
