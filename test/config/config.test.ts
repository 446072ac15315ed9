import { buildConfig, catalogue, redactConfig } from "../../plugins/config.ts";
import { idleTimeoutSeconds } from "../../api/server.ts";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v5 as uuidv5, validate as uuidValidate, version as uuidVersion } from "uuid";
import { getAddress } from "viem";
import { MAX_LATE_SCAN_BLOCKS } from "../../config/env.ts";
import { ConfigError, networkIdOf, networksForMode, setVariables, type Config } from "../../config/index.ts";
import { sandboxAccounts } from "../../rails/evm/sandbox.ts";
import { sandboxChainEnv } from "../../scripts/lib/sandboxChains.ts";
import { SANDBOX_RATES, sandboxEnv } from "../../scripts/lib/sandboxEnv.ts";
import { indexedEvmNetworks } from "../../config/indexer.ts";
import { networksFollowedBy } from "../../rails/index.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";

/** The namespace network ids are derived in. Changing it would change every network id merchants stored. */
const NETWORK_ID_NAMESPACE = "2f1f6d2e-6a57-4a8e-9a0e-4d2b8f3c1a10";
const PRODUCTION_KEY = Buffer.alloc(32, 9).toString("base64");
const BASE_ID = "42403a80-d97e-58a7-a969-c6fcf512772e";

const tmp = mkdtempSync(join(tmpdir(), "stablepay-config-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function configError(env: Record<string, string | undefined>, options?: Parameters<typeof buildConfig>[1]): ConfigError {
  try {
    buildConfig(env, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`buildConfig accepted ${JSON.stringify(env)}`);
}

const byShortName = (config: Config, shortName: string) => {
  const network = config.networks.find((n) => n.shortName === shortName);
  if (!network) throw new Error(`no network ${shortName}`);
  return network;
};

const enabledShortNames = (config: Config) => config.networks.filter((n) => n.enabled).map((n) => n.shortName);

describe("buildConfig defaults", () => {
  test("an empty environment gives the documented defaults", () => {
    const config = buildConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config).toMatchObject({
      appEnv: "development",
      http: { host: "127.0.0.1", port: 3000, publicBaseUrl: "http://127.0.0.1:3000" },
      databasePoolSize: 10,
      databaseProbeTimeoutMs: 5_000,
      dataDir: ".data",
      redis: { url: "redis://127.0.0.1:6379", prefix: "stablepay", timeoutMs: 1_000 },
      indexer: { schema: "stablepay_indexer", viewsSchema: "onchain", maxLagBlocks: 5, port: 42069 },
      rpcTimeoutMs: 2000,
      logLevel: "info",
    });
  });

  test("the whole catalogue is present and nothing is enabled without an RPC URL", () => {
    const config = buildConfig({});
    expect(config.networks.map((n) => n.shortName)).toEqual([
      "ethereum", "base", "polygon", "arbitrum", "optimism", "bsc", "solana", "sepolia", "base-sepolia", "solana-devnet",
    ]);
    expect(enabledShortNames(config)).toEqual([]);
    expect(config.networks.every((n) => n.rpcUrl === null && n.wsUrl === null)).toBe(true);
  });

  test("values given are parsed and coerced", () => {
    const config = buildConfig({
      APP_ENV: "test",
      HOST: "0.0.0.0",
      PORT: "8080",
      DATABASE_URL: "postgresql://app@db:5432/pay",
      DATABASE_POOL_SIZE: "25",
      DATABASE_PROBE_TIMEOUT_MS: "0",
      REDIS_URL: "rediss://cache:6380",
      QUEUE_PREFIX: "pay:eu-1",
      INDEXER_SCHEMA: "idx",
      INDEXER_VIEWS_SCHEMA: "views",
      INDEXER_MAX_LAG_BLOCKS: "0",
      RPC_TIMEOUT_MS: "500",
      LOG_LEVEL: "debug",
      DATA_DIR: "/var/lib/stablepay",
      INDEXER_PORT: "42070",
    });
    expect(config).toMatchObject({
      appEnv: "test",
      // 0.0.0.0 is a bind address, not one a client can reach.
      http: { host: "0.0.0.0", port: 8080, publicBaseUrl: "http://127.0.0.1:8080" },
      databaseUrl: "postgresql://app@db:5432/pay",
      databasePoolSize: 25,
      databaseProbeTimeoutMs: 0,
      dataDir: "/var/lib/stablepay",
      redis: { url: "rediss://cache:6380", prefix: "pay:eu-1" },
      indexer: { schema: "idx", viewsSchema: "views", maxLagBlocks: 0, port: 42070 },
      rpcTimeoutMs: 500,
      logLevel: "debug",
    });
  });

  test("PUBLIC_BASE_URL loses its trailing slashes and prefixes network logos", () => {
    const config = buildConfig({ PUBLIC_BASE_URL: "https://pay.example.com//" });
    expect(config.http.publicBaseUrl).toBe("https://pay.example.com");
    expect(byShortName(config, "base").logo).toBe("https://pay.example.com/api/static/networks/base.svg");
  });
});

describe("buildConfig rejects invalid variables with a ConfigError naming the variable", () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ["PORT not a number", { PORT: "abc" }, "PORT"],
    ["PORT out of range", { PORT: "65536" }, "PORT"],
    ["REDIS_URL not redis", { REDIS_URL: "http://x" }, "REDIS_URL"],
    ["DATABASE_URL not postgres", { DATABASE_URL: "mysql://user:pw@db:3306/pay" }, "DATABASE_URL"],
    ["APP_ENV unknown", { APP_ENV: "prod" }, "APP_ENV"],
    ["NETWORKS_DISABLED unknown network", { NETWORKS_DISABLED: "nope" }, "NETWORKS_DISABLED"],
    ["RPC_URL_<chainId> not a URL", { RPC_URL_8453: "not-a-url" }, "RPC_URL_8453"],
    ["RPC_URL_<SHORT_NAME> not a URL", { RPC_URL_BASE_SEPOLIA: "not-a-url" }, "RPC_URL_BASE_SEPOLIA"],
    ["WS_URL with http", { WS_URL_1: "http://x" }, "WS_URL_1"],
    ["Solana RPC over websocket", { RPC_URL_SOLANA: "wss://solana.example" }, "RPC_URL_SOLANA"],
    ["LOG_LEVEL unknown", { LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    ["INDEXER_SCHEMA not an identifier", { INDEXER_SCHEMA: "Drop Table" }, "INDEXER_SCHEMA"],
    ["INDEXER_MAX_LAG_BLOCKS negative", { INDEXER_MAX_LAG_BLOCKS: "-1" }, "INDEXER_MAX_LAG_BLOCKS"],
    ["INDEXER_PORT not a port", { INDEXER_PORT: "http" }, "INDEXER_PORT"],
    ["CORS_ORIGINS not an origin", { CORS_ORIGINS: "shop.example.com" }, "CORS_ORIGINS"],
    ["CORS_ORIGINS with a path", { CORS_ORIGINS: "https://shop.example.com/checkout" }, "CORS_ORIGINS"],
    ["CORS_ORIGINS empty", { CORS_ORIGINS: " , " }, "CORS_ORIGINS"],
    ["TRANSFER_REPLACE_AFTER zero", { TRANSFER_REPLACE_AFTER: "0" }, "TRANSFER_REPLACE_AFTER"],
    ["TRANSFER_REPLACE_AFTER not a number", { TRANSFER_REPLACE_AFTER: "soon" }, "TRANSFER_REPLACE_AFTER"],
    ["DATABASE_PROBE_TIMEOUT_MS below its floor", { DATABASE_PROBE_TIMEOUT_MS: "100" }, "DATABASE_PROBE_TIMEOUT_MS"],
    ["FEE_RECIPIENT not an address", { FEE_RECIPIENT: "0x1234" }, "FEE_RECIPIENT"],
    ["REFUND_MIN_AMOUNT negative", { REFUND_MIN_AMOUNT: "-1" }, "REFUND_MIN_AMOUNT"],
    ["REFUND_MIN_AMOUNT with an exponent", { REFUND_MIN_AMOUNT: "1e3" }, "REFUND_MIN_AMOUNT"],
    ["REFUND_MIN_AMOUNT over 6 decimals", { REFUND_MIN_AMOUNT: "0.0000001" }, "REFUND_MIN_AMOUNT"],
    // One letter's case flipped in a checksummed address: a typo the checksum exists to catch.
    ["FEE_RECIPIENT with a broken checksum", { FEE_RECIPIENT: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8" }, "FEE_RECIPIENT"],
    // BUG: a placeholder key of zeros (or one past the curve's order) passed, and the first use
    // (health, payable networks, every EVM create) failed with a 500.
    ["OPERATOR_PRIVATE_KEY of zeros", { OPERATOR_PRIVATE_KEY: `0x${"0".repeat(64)}` }, "OPERATOR_PRIVATE_KEY"],
    ["OPERATOR_PRIVATE_KEY past the curve's order", { OPERATOR_PRIVATE_KEY: `0x${"f".repeat(64)}` }, "OPERATOR_PRIVATE_KEY"],
    ["BRIDGE_LOCAL_RELAYER_KEY of zeros", { BRIDGE_LOCAL_RELAYER_KEY: `0x${"0".repeat(64)}` }, "BRIDGE_LOCAL_RELAYER_KEY"],
    // BUG: browsers send an origin lower-case and without its default port, matched exactly; a wildcard never matched.
    ["CORS_ORIGINS with a wildcard", { CORS_ORIGINS: "https://*.example.com" }, "CORS_ORIGINS"],
    ["PUBLIC_BASE_URL with a query", { PUBLIC_BASE_URL: "https://pay.example.com/?x=1" }, "PUBLIC_BASE_URL"],
  ];
  for (const [what, env, variable] of cases) {
    test(what, () => {
      const error = configError(env);
      expect(error.name).toBe("ConfigError");
      expect(error.message.startsWith(`${variable}:`)).toBe(true);
    });
  }

  test("exact messages for the URL checks", () => {
    expect(configError({ REDIS_URL: "http://x" }).message).toBe("REDIS_URL: must be a URL (redis: or rediss:)");
    expect(configError({ DATABASE_URL: "mysql://user:pw@db:3306/pay" }).message).toBe(
      "DATABASE_URL: must be a URL (postgres: or postgresql:)",
    );
    expect(configError({ RPC_URL_8453: "not-a-url" }).message).toBe("RPC_URL_8453: not a URL");
    expect(configError({ WS_URL_1: "http://x" }).message).toBe("WS_URL_1: must use ws: or wss:");
    expect(configError({ NETWORKS_DISABLED: "base,nope" }).message).toBe('NETWORKS_DISABLED: unknown network "nope"');
  });

  test("REFUND_MIN_AMOUNT: 0.50 by default, any decimal of up to 6 places (0 refunds any amount)", () => {
    expect(buildConfig({}).refunds.minimum).toBe("0.5");
    expect(buildConfig({ REFUND_MIN_AMOUNT: " 2.250 " }).refunds.minimum).toBe("2.25");
    expect(buildConfig({ REFUND_MIN_AMOUNT: "0" }).refunds.minimum).toBe("0");
  });

  test("FEE_RECIPIENT is checksummed once, at start; a mixed-case one must carry its checksum", () => {
    const checksummed = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    for (const FEE_RECIPIENT of [checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`, checksummed, ` ${checksummed} `]) {
      expect(buildConfig({ FEE_BPS: "30", FEE_RECIPIENT }).fees).toEqual({ bps: 30, recipient: checksummed });
    }
    expect(configError({ FEE_BPS: "30", FEE_RECIPIENT: "0x70997970c51812dc3A010C7d01b50e0d17dc79C8" }).message).toBe(
      "FEE_RECIPIENT: must be an EVM address (0x and 40 hex digits; in mixed case, with a valid EIP-55 checksum)",
    );
  });

  // BUG: `KEY=` in an env file read as 0 for a number: port 0, no watch after expiry, no secret overlap.
  test("a blank variable is unset: its default, never 0", () => {
    const config = buildConfig({ PORT: "", INDEXER_WATCH_AFTER_EXPIRY_HOURS: " ", WEBHOOK_SECRET_OVERLAP_HOURS: "" });
    const defaults = buildConfig({});
    expect(config.http.port).toBe(3000);
    expect(config.indexer.watchAfterExpiryHours).toBe(defaults.indexer.watchAfterExpiryHours);
    expect(config.webhooks).toEqual(defaults.webhooks);
    expect(defaults.indexer.watchAfterExpiryHours).toBeGreaterThan(0);
  });

  // BUG: `npm start` filled the sandbox's defaults with `??`, which keeps "": `BRIDGE_LOCAL_RELAYER_KEY=`
  // failed the start after the chains were up, `OPERATOR_PRIVATE_KEY=` left the sandbox with no operator.
  test("the sandbox's roles: a blank variable takes the sandbox's default; what the operator set wins; what the start made is kept", async () => {
    const made = { DATABASE_URL: "postgres://sandbox", REDIS_URL: "redis://sandbox", NETWORKS_FILE: "/sandbox/networks.json", SOLANA_OPERATOR_SECRET_KEY: "made" };
    const env = sandboxEnv(setVariables({ OPERATOR_PRIVATE_KEY: "", BRIDGE_LOCAL_RELAYER_KEY: " ", RATES_STATIC: "", OPERATOR_TOKEN: "", LOG_LEVEL: "warn", DATABASE_URL: "postgres://other" }), made, await sandboxChainEnv());
    expect(env).toMatchObject({ OPERATOR_PRIVATE_KEY: sandboxAccounts.operator, BRIDGE_LOCAL_RELAYER_KEY: sandboxAccounts.relayer, RATES_STATIC: SANDBOX_RATES, LOG_LEVEL: "warn", APP_ENV: "development", ...made });
    expect(env.OPERATOR_TOKEN!.length).toBeGreaterThanOrEqual(32);
  });

  // BUG: HOST=:: gave http://:::3000 as the base of every link (no URL), and `npm start` waited on it for a minute.
  test.each([
    ["::", "http://[::1]:3000"],
    ["0.0.0.0", "http://127.0.0.1:3000"],
    ["::1", "http://[::1]:3000"],
    ["localhost", "http://localhost:3000"],
  ])("HOST=%s without PUBLIC_BASE_URL: links on %s", (host, base) => {
    const url = buildConfig({ HOST: host }).http.publicBaseUrl;
    expect(url).toBe(base);
    expect(new URL(`${url}/checkout/x`).port).toBe("3000");
  });

  // BUG: a fractional INDEXER_WATCH_AFTER_EXPIRY_HOURS was taken, and Postgres' make_interval (integer hours) failed every block the indexer read.
  test("INDEXER_WATCH_AFTER_EXPIRY_HOURS is whole hours", () => {
    expect(configError({ INDEXER_WATCH_AFTER_EXPIRY_HOURS: "1.5" }).message).toStartWith("INDEXER_WATCH_AFTER_EXPIRY_HOURS");
    expect(buildConfig({ INDEXER_WATCH_AFTER_EXPIRY_HOURS: "36" }).indexer.watchAfterExpiryHours).toBe(36);
  });

  test("the late-money scan: an hour in every block, then ranges of 30 blocks, never more than dispatch looks back", () => {
    const { indexer } = buildConfig({});
    expect([indexer.everyBlockAfterExpiryMinutes, indexer.lateScanBlocks]).toEqual([60, 30]);
    expect(buildConfig({ INDEXER_LATE_SCAN_BLOCKS: String(MAX_LATE_SCAN_BLOCKS) }).indexer.lateScanBlocks).toBe(MAX_LATE_SCAN_BLOCKS);
    for (const bad of ["0", String(MAX_LATE_SCAN_BLOCKS + 1), "2.5"]) expect(configError({ INDEXER_LATE_SCAN_BLOCKS: bad }).message).toStartWith("INDEXER_LATE_SCAN_BLOCKS");
    for (const bad of ["-1", "1.5"]) expect(configError({ INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES: bad }).message).toStartWith("INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES");
  });

  test("CORS_ORIGINS are kept as a browser sends its Origin: lower-case host, no default port", () => {
    expect(buildConfig({ CORS_ORIGINS: "https://Shop.Example.com:443, http://localhost:8080/" }).http.corsOrigins).toEqual(["https://shop.example.com", "http://localhost:8080"]);
  });

  test("production without PUBLIC_BASE_URL fails naming it (links would point at 127.0.0.1)", () => {
    expect(configError({ APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, HOST: "0.0.0.0" }).message).toStartWith("PUBLIC_BASE_URL: required when APP_ENV=production");
  });

  test("production without DATABASE_URL fails naming DATABASE_URL", () => {
    expect(configError({ APP_ENV: "production" }).message).toBe("DATABASE_URL: required when APP_ENV=production");
  });

  test("production without SECRETS_KEY fails naming SECRETS_KEY", () => {
    expect(configError({ APP_ENV: "production", DATABASE_URL: "postgres://db/pay" }).message).toStartWith("SECRETS_KEY: required when APP_ENV=production");
  });

  test("a SECRETS_KEY that is not 32 bytes fails naming SECRETS_KEY", () => {
    for (const SECRETS_KEY of ["abc", Buffer.alloc(16).toString("base64"), "g".repeat(64)]) {
      expect(configError({ SECRETS_KEY }).message).toStartWith("SECRETS_KEY: must be 32 bytes");
    }
  });

  test("production with DATABASE_URL and SECRETS_KEY is accepted", () => {
    const config = buildConfig({ APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, PUBLIC_BASE_URL: "https://pay.example.com" });
    expect(config.appEnv).toBe("production");
    expect(config.secrets.open(config.secrets.seal("whsec_x"))).toBe("whsec_x");
  });

  test("outside production an unset SECRETS_KEY falls back to the public development key", () => {
    const development = buildConfig({});
    const production = buildConfig({ APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, PUBLIC_BASE_URL: "https://pay.example.com" });
    expect(development.secrets.keyId).not.toBe(production.secrets.keyId);
    expect(buildConfig({ APP_ENV: "test" }).secrets.keyId).toBe(development.secrets.keyId);
  });

  test("test-mode webhooks go only to public addresses in production unless WEBHOOK_TEST_TARGETS=any; elsewhere anywhere unless =public", () => {
    const production = { APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, PUBLIC_BASE_URL: "https://pay.example.com" };
    expect(buildConfig(production).webhooks.testTargets).toBe("public");
    expect(buildConfig({ ...production, WEBHOOK_TEST_TARGETS: "any" }).webhooks.testTargets).toBe("any");
    expect(buildConfig({}).webhooks.testTargets).toBe("any");
    expect(buildConfig({ WEBHOOK_TEST_TARGETS: "public" }).webhooks.testTargets).toBe("public");
    expect(configError({ WEBHOOK_TEST_TARGETS: "private" }).message).toContain("WEBHOOK_TEST_TARGETS");
  });
});

describe("network enablement", () => {
  test("RPC_URL_<chainId> enables exactly that network", () => {
    const config = buildConfig({ RPC_URL_8453: "https://base.example" });
    expect(enabledShortNames(config)).toEqual(["base"]);
    expect(byShortName(config, "base").rpcUrl).toBe("https://base.example");
  });

  test("RPC_URL_<SHORT_NAME> enables it too, dashes written as underscores", () => {
    const config = buildConfig({ RPC_URL_BASE_SEPOLIA: "https://sepolia.base.example", RPC_URL_SOLANA: "https://solana.example" });
    expect(enabledShortNames(config)).toEqual(["solana", "base-sepolia"]);
  });

  test("RPC_URL_<chainId> wins over RPC_URL_<SHORT_NAME>", () => {
    const config = buildConfig({ RPC_URL_8453: "https://by-id.example", RPC_URL_BASE: "https://by-name.example" });
    expect(byShortName(config, "base").rpcUrl).toBe("https://by-id.example");
  });

  test("an EVM RPC may be a websocket URL; a WS_URL alone does not enable a network", () => {
    const config = buildConfig({ RPC_URL_1: "wss://eth.example", WS_URL_137: "wss://polygon.example" });
    expect(enabledShortNames(config)).toEqual(["ethereum"]);
    expect(byShortName(config, "polygon").wsUrl).toBe("wss://polygon.example");
  });

  test("RPC_URL_* and WS_URL_* take a comma-separated list; the first stays rpcUrl / wsUrl", () => {
    const config = buildConfig({
      RPC_URL_8453: "https://a.example/v2/key-a , https://b.example",
      WS_URL_8453: "wss://a.example,wss://b.example",
      RPC_URL_SOLANA: "https://sol-a.example,https://sol-b.example/?api-key=k",
    });
    const base = byShortName(config, "base");
    expect(base.rpcUrl).toBe("https://a.example/v2/key-a");
    expect(base.rpcUrls).toEqual(["https://a.example/v2/key-a", "https://b.example"]);
    expect(base.wsUrl).toBe("wss://a.example");
    expect(base.wsUrls).toEqual(["wss://a.example", "wss://b.example"]);
    expect(byShortName(config, "solana").rpcUrls).toEqual(["https://sol-a.example", "https://sol-b.example/?api-key=k"]);
    expect(byShortName(config, "polygon").rpcUrls).toEqual([]);
  });

  test("a bad item of an RPC URL list stops start-up naming the variable and the item", () => {
    expect(configError({ RPC_URL_8453: "https://a.example,ftp://b.example" }).message).toContain("RPC_URL_8453 (item 2): must use http: or https: or ws: or wss:");
    expect(configError({ RPC_URL_8453: "https://a.example,,https://b.example" }).message).toContain("RPC_URL_8453: item 2 of the list is empty");
    expect(configError({ RPC_URL_SOLANA: "https://a.example,wss://b.example" }).message).toContain("RPC_URL_SOLANA (item 2): must use http: or https:");
    expect(configError({ WS_URL_8453: "wss://a.example,https://b.example" }).message).toContain("WS_URL_8453 (item 2): must use ws: or wss:");
    expect(configError({ RPC_URL_8453: "https://a.example,not a url" }).message).toContain("RPC_URL_8453 (item 2): not a URL");
  });

  test("a blank RPC URL does not enable a network", () => {
    expect(enabledShortNames(buildConfig({ RPC_URL_8453: "   " }))).toEqual([]);
  });

  test("NETWORKS_DISABLED disables a network that has an RPC URL", () => {
    const config = buildConfig({
      RPC_URL_8453: "https://base.example",
      RPC_URL_137: "https://polygon.example",
      RPC_URL_42161: "https://arb.example",
      NETWORKS_DISABLED: " base , polygon ",
    });
    expect(enabledShortNames(config)).toEqual(["arbitrum"]);
    expect(byShortName(config, "base").rpcUrl).toBe("https://base.example");
  });

  test("each ingest role follows its own rails' enabled networks (what its /metrics reports lag for)", () => {
    const config = buildConfig({ RPC_URL_BASE: "https://base.example", RPC_URL_137: "https://polygon.example", RPC_URL_SOLANA: "https://solana.example", NETWORKS_DISABLED: "polygon" });
    expect(networksFollowedBy(config, "indexer").map((n) => n.shortName)).toEqual(["base"]);
    expect(networksFollowedBy(config, "solana").map((n) => n.shortName)).toEqual(["solana"]);
    expect(networksFollowedBy(config, "worker")).toEqual([]);
    expect(networksFollowedBy(config, "api")).toEqual([]);
  });

  test("networksForMode splits mainnets (live) from testnets (test)", () => {
    const config = buildConfig({});
    expect(networksForMode(config, "live").map((n) => n.shortName)).toEqual([
      "ethereum", "base", "polygon", "arbitrum", "optimism", "bsc", "solana",
    ]);
    expect(networksForMode(config, "test").map((n) => n.shortName)).toEqual(["sepolia", "base-sepolia", "solana-devnet"]);
  });
});

describe("network ids", () => {
  test("base has the stable id, uuid v5 of evm:8453", () => {
    const base = byShortName(buildConfig({}), "base");
    expect(base.id).toBe(BASE_ID);
    expect(networkIdOf("evm", "8453")).toBe(BASE_ID);
    expect(uuidv5("evm:8453", NETWORK_ID_NAMESPACE)).toBe(BASE_ID);
    expect(uuidValidate(base.id)).toBe(true);
    expect(uuidVersion(base.id)).toBe(5);
  });

  test("every id is uuid v5 of <type>:<chainId>, distinct, and the same on every build", () => {
    const first = buildConfig({});
    const second = buildConfig({ RPC_URL_8453: "https://base.example", PUBLIC_BASE_URL: "https://elsewhere.example" });
    for (const n of first.networks) expect(n.id).toBe(uuidv5(`${n.type}:${n.chainId}`, NETWORK_ID_NAMESPACE));
    expect(new Set(first.networks.map((n) => n.id)).size).toBe(first.networks.length);
    expect(second.networks.map((n) => n.id)).toEqual(first.networks.map((n) => n.id));
  });
});

describe("catalogue tokens", () => {
  test("BNB Smart Chain tokens have 18 decimals, every other token 6", () => {
    const config = buildConfig({});
    const decimals = config.networks.flatMap((n) => n.tokens.map((t) => `${n.shortName}:${t.symbol}:${t.decimals}`));
    expect(decimals).toEqual([
      "ethereum:USDC:6", "ethereum:USDT:6",
      "base:USDC:6", "base:USDT:6",
      "polygon:USDC:6", "polygon:USDT:6",
      "arbitrum:USDC:6", "arbitrum:USDT:6",
      "optimism:USDC:6", "optimism:USDT:6",
      "bsc:USDC:18", "bsc:USDT:18",
      "solana:USDC:6", "solana:USDT:6",
      "sepolia:USDC:6",
      "base-sepolia:USDC:6",
      "solana-devnet:USDC:6",
    ]);
  });

  test("every EVM token address in the catalogue source is EIP-55 checksummed", () => {
    const evmTokens = catalogue.filter((n) => n.type === "evm").flatMap((n) => n.tokens);
    expect(evmTokens.length).toBe(14);
    for (const token of evmTokens) expect(token.address).toBe(getAddress(token.address));
  });

  test("token addresses survive normalisation unchanged", () => {
    const config = buildConfig({});
    for (const def of catalogue) {
      const built = byShortName(config, def.shortName);
      expect(built.tokens.map((t) => t.address)).toEqual(def.tokens.map((t) => t.address));
    }
  });
});

describe("extra networks and networks files", () => {
  test("an extra local network is added, enabled by its own rpcUrl, with the same derived fields", () => {
    const config = buildConfig({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] });
    const anvil = byShortName(config, "anvil");
    expect(anvil).toEqual({
      id: networkIdOf("evm", "31337"),
      name: "Anvil",
      shortName: "anvil",
      chainId: "31337",
      type: "evm",
      color: "#6B7280",
      explorerUrl: null,
      isTestnet: true,
      isLocal: true,
      requiredConfirmations: 3,
      finalityBlocks: null,
      tokens: [{ symbol: "USDC", name: "USD Coin", address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", decimals: 6 }],
      rpcUrl: "http://127.0.0.1:8545",
      rpcUrls: ["http://127.0.0.1:8545"],
      wsUrl: null,
      wsUrls: [],
      settlementContract: null,
      forwarderFactory: null,
      logo: "http://127.0.0.1:3000/api/static/networks/anvil.svg",
      enabled: true,
    });
    expect(anvil.id).toBe("78450c6c-d05d-5e6e-a7ba-384210d29214");
    expect(networksForMode(config, "test").map((n) => n.shortName)).toEqual(["sepolia", "base-sepolia", "solana-devnet", "anvil"]);
  });

  // BUG: a networks file's rpcUrl/wsUrl passed zod's url() (`localhost:8545`, `ftp:`, a ws URL given
  // as http) and a chain id that is no number loaded: every one failed only at runtime.
  test("a networks file's URLs and EVM chain id are checked as the variables are", () => {
    const refused = (over: Record<string, unknown>) => {
      try {
        buildConfig({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545", over)] });
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    expect(refused({ rpcUrl: "ftp://rpc.example" })).toBe("network anvil: rpcUrl: must use http: or https: or ws: or wss:");
    expect(refused({ rpcUrl: "localhost:8545" })).toStartWith("network anvil: rpcUrl: must use");
    expect(refused({ wsUrl: "http://a.example" })).toBe("network anvil: wsUrl: must use ws: or wss:");
    expect(refused({ chainId: "not-a-number" })).toBe('network anvil: chainId must be a positive integer on an EVM network, not "not-a-number"');
    expect(refused({ wsUrl: "ws://127.0.0.1:8546" })).toBe("accepted");
  });

  test("an extra network's token address is checksummed on load", () => {
    const config = buildConfig({}, {
      extraNetworks: [anvilNetwork("http://127.0.0.1:8545", {
        tokens: [{ symbol: "USDC", name: "USD Coin", address: "0x5fbdb2315678afecb367f032d93f642f64180aa3", decimals: 6 }],
      })],
    });
    expect(byShortName(config, "anvil").tokens[0]!.address).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
  });

  test("RPC_URL_<chainId> overrides the extra network's own rpcUrl", () => {
    const config = buildConfig({ RPC_URL_31337: "http://127.0.0.1:9999" }, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] });
    expect(byShortName(config, "anvil").rpcUrl).toBe("http://127.0.0.1:9999");
  });

  test("a local network is refused with APP_ENV=production", () => {
    const error = configError(
      { APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, PUBLIC_BASE_URL: "https://pay.example.com" },
      { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] },
    );
    expect(error.message).toBe('NETWORKS_FILE: local network "anvil" is not allowed when APP_ENV=production');
  });

  test("an extra network with a bad token address fails naming the network", () => {
    const error = configError({}, {
      extraNetworks: [anvilNetwork("http://127.0.0.1:8545", {
        tokens: [{ symbol: "USDC", name: "USD Coin", address: "0x5FbDB2315678afecb367f032d93F642f64180aA3", decimals: 6 }],
      })],
    });
    expect(error.message).toBe("network anvil: token USDC has an invalid address 0x5FbDB2315678afecb367f032d93F642f64180aA3");
  });

  test("an extra network reusing a catalogue chain id fails", () => {
    const error = configError({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545", { shortName: "my-base", chainId: "8453" })] });
    expect(error.message).toBe("NETWORKS_FILE: chain 8453 is defined twice");
  });

  test("a networks file is read, validated and its defaults applied", () => {
    const path = join(tmp, "networks.json");
    writeFileSync(path, JSON.stringify({
      networks: [{
        name: "Devnet", shortName: "devnet", chainId: 1337, type: "evm", isTestnet: true, requiredConfirmations: 1,
        tokens: [{ symbol: "USDT", name: "Tether USD", address: "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512", decimals: 6 }],
        rpcUrl: "http://127.0.0.1:8546",
      }],
    }));
    const devnet = byShortName(buildConfig({ NETWORKS_FILE: path }), "devnet");
    expect(devnet.chainId).toBe("1337");
    expect(devnet.color).toBe("#6B7280");
    expect(devnet.explorerUrl).toBeNull();
    expect(devnet.isLocal).toBe(false);
    expect(devnet.enabled).toBe(true);
    expect(devnet.tokens).toEqual([{ symbol: "USDT", name: "Tether USD", address: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", decimals: 6 }]);
  });

  test("a networks file with a bad token address fails naming the network", () => {
    const path = join(tmp, "bad-token.json");
    writeFileSync(path, JSON.stringify({
      networks: [{
        name: "Devnet", shortName: "devnet", chainId: "1337", type: "evm", isTestnet: true, requiredConfirmations: 1,
        tokens: [{ symbol: "USDC", name: "USD Coin", address: "0x1234", decimals: 6 }],
      }],
    }));
    const error = configError({ NETWORKS_FILE: path });
    expect(error.message).toBe("network devnet: token USDC has an invalid address 0x1234");
  });

  test("a networks file failing its schema names the file and the field", () => {
    const path = join(tmp, "bad-schema.json");
    writeFileSync(path, JSON.stringify({ networks: [{ name: "Devnet", shortName: "Dev Net", chainId: "1337", type: "evm", isTestnet: true, requiredConfirmations: 1, tokens: [] }] }));
    expect(configError({ NETWORKS_FILE: path }).message).toBe(
      `NETWORKS_FILE: ${path}: networks.0.shortName: lowercase letters, digits and dashes`,
    );
  });

  test("a missing networks file fails naming NETWORKS_FILE", () => {
    const path = join(tmp, "missing.json");
    expect(configError({ NETWORKS_FILE: path }).message.startsWith(`NETWORKS_FILE: cannot read ${path}:`)).toBe(true);
  });
});

describe("redactConfig", () => {
  test("hides credentials, paths and queries of URLs; keeps protocol and host", () => {
    const config = buildConfig({
      DATABASE_URL: "postgres://app:db-password@db.internal:5432/payments?sslmode=require",
      REDIS_URL: "redis://:redis-password@cache.internal:6379/0",
      RPC_URL_8453: "https://base-mainnet.g.alchemy.com/v2/SECRET_API_KEY",
      WS_URL_8453: "wss://user:ws-password@base.example",
      RPC_URL_137: "https://polygon.example/?apikey=SECRET_QUERY_KEY",
      RPC_URL_1: "https://eth.example",
    });
    const redacted = redactConfig(config);
    expect(redacted.databaseUrl).toBe("postgres://db.internal:5432/…");
    expect(redacted.redis).toEqual({ url: "redis://cache.internal:6379/…", prefix: "stablepay", timeoutMs: 1_000 });
    expect(redacted.networks.find((n) => n.shortName === "base")).toEqual({
      shortName: "base", enabled: true, rpcUrl: "https://base-mainnet.g.alchemy.com/…", rpcUrls: ["https://base-mainnet.g.alchemy.com/…"], wsUrl: "wss://base.example", wsUrls: ["wss://base.example"],
    });
    expect(redacted.networks.find((n) => n.shortName === "polygon")?.rpcUrl).toBe("https://polygon.example/…");
    expect(redacted.networks.find((n) => n.shortName === "ethereum")?.rpcUrl).toBe("https://eth.example");
    expect(redacted.networks.find((n) => n.shortName === "solana")).toEqual({ shortName: "solana", enabled: false, rpcUrl: null, rpcUrls: [], wsUrl: null, wsUrls: [] });

    expect(redacted.secrets).toEqual({ keyId: config.secrets.keyId });
    const logged = JSON.stringify(redacted);
    for (const secret of ["db-password", "redis-password", "SECRET_API_KEY", "ws-password", "SECRET_QUERY_KEY", "app:"]) {
      expect(logged).not.toContain(secret);
    }
  });

  test("leaves a config without a database URL as null and does not touch the original", () => {
    const config = buildConfig({ RPC_URL_8453: "https://base.example/v2/KEY" });
    const redacted = redactConfig(config);
    expect(redacted.databaseUrl).toBeNull();
    expect(config.networks.find((n) => n.shortName === "base")?.rpcUrl).toBe("https://base.example/v2/KEY");
  });
});

describe("operator settings", () => {
  test("defaults: no token (metrics and dashboard off), worker 9464, indexer 9465, read-only dashboard, metrics on HOST", () => {
    expect(buildConfig({ HOST: "0.0.0.0" }).operator).toEqual({
      token: null,
      metricsHost: "0.0.0.0",
      metricsPorts: { worker: 9464, indexer: 9465, solana: 9466 },
      queueDashboard: "read-only",
    });
  });

  test("a token, ports and the dashboard's mode are read; the token is redacted in logs", () => {
    const config = buildConfig({ OPERATOR_TOKEN: "t0k3n-of-16-chars", METRICS_HOST: "10.0.0.5", WORKER_METRICS_PORT: "0", INDEXER_METRICS_PORT: "9999", QUEUE_DASHBOARD: "read-write" });
    expect(config.operator).toEqual({ token: "t0k3n-of-16-chars", metricsHost: "10.0.0.5", metricsPorts: { worker: 0, indexer: 9999, solana: 9466 }, queueDashboard: "read-write" });
    expect(redactConfig(config).operator.token).toBe("[redacted]");
  });

  test.each([
    [{ OPERATOR_TOKEN: "short" }, "OPERATOR_TOKEN: must be 16 to 512 printable characters without spaces (e.g. `openssl rand -hex 32`)"],
    [{ OPERATOR_TOKEN: "has a space in it!!" }, "OPERATOR_TOKEN: must be 16 to 512 printable characters without spaces (e.g. `openssl rand -hex 32`)"],
    [{ QUEUE_DASHBOARD: "on" }, "QUEUE_DASHBOARD:"],
    [{ WORKER_METRICS_PORT: "70000" }, "WORKER_METRICS_PORT:"],
  ])("%p is refused naming the variable", (env, message) => {
    expect(configError(env).message).toStartWith(message);
  });
});

// BUG: without START_BLOCK_<id> a real chain started at "latest", resolved again at each start of
// Ponder under the same build id: a restart rolled back its unfinalised rows and never read those
// blocks again (payments completed there reverted; money paid meanwhile was never seen).
describe("indexed EVM networks: start blocks", () => {
  const base = { RPC_URL_8453: "https://base.example", RPC_URL_BASE_SEPOLIA: "https://sepolia.base.example" };
  const production = { ...base, APP_ENV: "production", DATABASE_URL: "postgres://db/pay", SECRETS_KEY: PRODUCTION_KEY, PUBLIC_BASE_URL: "https://pay.example.com" };
  const startOf = (networks: ReturnType<typeof indexedEvmNetworks>, shortName: string) => networks.find((n) => n.shortName === shortName)?.startBlock;

  test("outside production a real chain without one starts at latest; a local chain at 0; a pinned one where it says", () => {
    const config = buildConfig(base, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] });
    const networks = indexedEvmNetworks(config, { START_BLOCK_84532: " 123 " });
    expect(startOf(networks, "base")).toBe("latest");
    expect(startOf(networks, "base-sepolia")).toBe(123);
    expect(startOf(networks, "anvil")).toBe(0);
  });

  test("in production every real chain must be pinned: a ConfigError naming the variable", () => {
    const config = buildConfig(production);
    const refused = (() => {
      try {
        indexedEvmNetworks(config, { START_BLOCK_8453: "30000000" });
      } catch (error) {
        return error as Error;
      }
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused!.message.startsWith("START_BLOCK_84532: required in production")).toBe(true);
    const networks = indexedEvmNetworks(config, { START_BLOCK_8453: "30000000", START_BLOCK_84532: "1" });
    expect(networks.map((n) => [n.shortName, n.startBlock])).toEqual([
      ["base", 30_000_000],
      ["base-sepolia", 1],
    ]);
  });

  test("a start block that is not a block number is refused", () => {
    expect(() => indexedEvmNetworks(buildConfig(base), { START_BLOCK_8453: "latest" })).toThrow("START_BLOCK_8453: must be a block number");
  });
});

// BUG: Bun closed a connection silent for 30 s (its default) while config allowed Relay and node
// timeouts past that: a slow cross-chain quote got a reset instead of its 502, while the
// payment might still commit.
describe("the API's idle timeout", () => {
  test("outlasts the slowest wait a request may have within the configured timeouts, within Bun's 255 s", () => {
    expect(idleTimeoutSeconds(buildConfig({}))).toBe(Math.ceil((3 * 10_000 + 2_000 + 3_000) / 1000) + 5);
    expect(idleTimeoutSeconds(buildConfig({ RELAY_TIMEOUT_MS: "60000" }))).toBe(190);
    expect(idleTimeoutSeconds(buildConfig({ RELAY_TIMEOUT_MS: "120000", RPC_TIMEOUT_MS: "60000" }))).toBe(255);
  });
});
