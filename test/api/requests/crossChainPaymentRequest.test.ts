import { describe, expect, test } from "bun:test";
import { parseCrossChainPaymentRequest, type CrossChainBody, type CrossChainScope } from "../../../api/requests/crossChainPaymentRequest.ts";
import { resolveCrossChainRoute } from "../../../api/services/resolveCrossChainRoute.ts";
import { type Config } from "../../../config/index.ts";
import { unitsOf } from "../../../domain/amounts.ts";
import { AppError, ValidationError } from "../../../domain/errors.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { buildConfig } from "../../../plugins/config.ts";

const usdt = { symbol: "USDT", name: "Tether USD", address: "0x" + "44".repeat(20), decimals: 6 };
const daiOn2 = { symbol: "DAI", name: "Dai", address: "0x" + "55".repeat(20), decimals: 18 };
const networks = [
  anvilNetwork("http://127.0.0.1:8545", { tokens: [{ symbol: "USDC", name: "USD Coin", address: "0x" + "33".repeat(20), decimals: 6 }, usdt] }),
  anvilNetwork("http://127.0.0.1:8546", { name: "Anvil 2", shortName: "anvil-2", chainId: "31338", tokens: [daiOn2, { symbol: "USDC", name: "USD Coin", address: "0x" + "66".repeat(20), decimals: 6 }] }),
];
// Relay between the two anvils; Base is configured (a mainnet) but Ethereum is not enabled.
const config = buildConfig({ APP_ENV: "test", BRIDGE_ADAPTER: "relay", RPC_URL_8453: "http://base.example" }, { extraNetworks: networks });
const unbridged = buildConfig({ APP_ENV: "test" }, { extraNetworks: networks });
const net = (c: Config, shortName: string) => c.networks.find((n) => n.shortName === shortName)!;

const scope = (over: Partial<CrossChainScope> = {}): CrossChainScope => ({ config, auth: { mode: "test", scheme: "api_key" }, agentHeader: undefined, ...over });
const body = (over: Partial<CrossChainBody> = {}): CrossChainBody => ({ amount: "25.5", originChainId: 31338, originCurrency: "DAI", ...over });

function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, code: error.code ?? null, field: error instanceof ValidationError ? error.field : null, message: error.message };
  }
  throw new Error("accepted");
}

describe("parseCrossChainPaymentRequest: what a valid body becomes", () => {
  test("the origin and its token, the written amount, flat metadata and the merchant's fields", () => {
    const request = parseCrossChainPaymentRequest(
      body({ originCurrency: " dai ", network: " anvil ", currency: "usdt", metadata: { cart: "7" }, callbackUrl: "https://m.example/h", cancelUrl: "https://shop.example/back", orderId: "o-9", expiresIn: 120 }),
      scope(),
    );
    expect(request.route.origin.shortName).toBe("anvil-2");
    expect(request.route.originToken.symbol).toBe("DAI");
    expect(request.route.network?.shortName).toBe("anvil");
    expect(request.route.currency).toBe("USDT");
    expect(request.amount).toEqual({ field: "amount", whole: "25", fraction: "5" });
    expect(request).toMatchObject({ metadata: { cart: "7" }, callbackUrl: "https://m.example/h", orderId: "o-9", customerEmail: null, expiresIn: 120, agentId: null });
    expect(request.returnUrls.cancelUrl?.text).toBe("https://shop.example/back");
  });

  test("defaults: 1800 seconds, no destination named (chosen from the wallets)", () => {
    const request = parseCrossChainPaymentRequest(body(), scope());
    expect(request).toMatchObject({ expiresIn: 1800, metadata: {}, returnUrls: { successUrl: null, cancelUrl: null } });
    expect(request.route.network).toBeNull();
    expect(request.route.currency).toBeUndefined();
  });
});

describe("parseCrossChainPaymentRequest: every refusal, with its status, code, field and text", () => {
  const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
  const cases: Array<[string, CrossChainBody, CrossChainScope, { status: number; code: string | null; field: string | null; message: string }]> = [
    ["a bad X-Agent-Id", body(), scope({ agentHeader: "a\tb" }), { status: 400, code: null, field: "X-Agent-Id", message: "Invalid header 'X-Agent-Id': 1 to 200 visible ASCII characters, no spaces" }],
    ["a bad agentId", body({ agentId: 7 }), scope(), { status: 400, code: null, field: "agentId", message: "Invalid field 'agentId': 1 to 200 visible ASCII characters, no spaces" }],
    ["agentId and header disagree", body({ agentId: "b" }), scope({ agentHeader: "a" }), { status: 400, code: null, field: "agentId", message: `Invalid field 'agentId': "b" differs from the X-Agent-Id header "a"` }],
    ["metadata not an object", body({ metadata: "x" }), scope(), { status: 400, code: null, field: "metadata", message: "Invalid field 'metadata': expected an object of string values" }],
    ["metadata with 51 keys", body({ metadata: many }), scope(), { status: 400, code: null, field: "metadata", message: "Invalid field 'metadata': at most 50 keys" }],
    ["an empty metadata key", body({ metadata: { "": "v" } }), scope(), { status: 400, code: null, field: "metadata.", message: "Invalid field 'metadata': keys are 1 to 100 characters" }],
    ["a metadata value that is no string", body({ metadata: { n: 1 } }), scope(), { status: 400, code: null, field: "metadata.n", message: "Invalid field 'metadata.n': expected a string of at most 1000 characters" }],
    ["a callbackUrl that is no URL", body({ callbackUrl: "x" }), scope(), { status: 400, code: null, field: "callbackUrl", message: "Invalid field 'callbackUrl': not a URL" }],
    ["a callbackUrl that is not http(s)", body({ callbackUrl: "file:///etc/passwd" }), scope(), { status: 400, code: null, field: "callbackUrl", message: "Invalid field 'callbackUrl': must be an http or https URL" }],
    ["expiresIn too long", body({ expiresIn: 604801 }), scope(), { status: 400, code: null, field: "expiresIn", message: "Invalid field 'expiresIn': seconds between 60 and 604800" }],
    ["a successUrl that is not http(s)", body({ successUrl: "data:text/html,hi" }), scope(), { status: 400, code: null, field: "successUrl", message: "Invalid field 'successUrl': must be an http or https URL" }],
    ["an origin chain this service does not know", body({ originChainId: 999 }), scope(), { status: 422, code: "ORIGIN_NOT_SUPPORTED", field: null, message: "Customers can pay only from EVM chains this service supports; chain 999 is not one." }],
    ["an origin chain not enabled", body({ originChainId: 1 }), scope(), { status: 422, code: "ORIGIN_NOT_SUPPORTED", field: null, message: "Ethereum (chain 1) is not enabled on this service." }],
    ["a mainnet origin with a test key", body({ originChainId: 8453 }), scope(), { status: 422, code: "ORIGIN_NOT_SUPPORTED", field: null, message: "Base is a mainnet; test keys take payments from testnets." }],
    ["an origin no bridge leaves from", body(), scope({ config: unbridged }), { status: 422, code: "ORIGIN_NOT_SUPPORTED", field: null, message: "No bridge is configured for payments from Anvil 2." }],
    ["an origin token not on the origin", body({ originCurrency: "usdt" }), scope(), { status: 400, code: null, field: "originCurrency", message: "Invalid field 'originCurrency': USDT is not a token on Anvil 2 (one of: DAI, USDC)" }],
    ["an unknown destination", body({ network: "base" }), scope(), { status: 400, code: null, field: "network", message: `Invalid field 'network': unknown network "base" for test mode` }],
    ["an amount that is no number", body({ amount: "1,5" }), scope(), { status: 400, code: null, field: "amount", message: `Invalid field 'amount': expected a positive decimal amount such as "10.50"` }],
    ["a zero amount", body({ amount: 0 }), scope(), { status: 400, code: null, field: "amount", message: "Invalid field 'amount': must be greater than 0" }],
    ["a JSON number past a double's digits", body({ amount: 0.12345678901234567 }), scope(), { status: 400, code: null, field: "amount", message: "Invalid field 'amount': too many digits for a JSON number; send the amount as a string" }],
  ];
  for (const [name, b, s, expected] of cases) {
    test(name, () => expect(refusal(() => parseCrossChainPaymentRequest(b, s))).toEqual(expected));
  }

  test("fields are read in the order the service always checked them: agent, metadata, callback, expiry, return URLs, then the route", () => {
    const first = (b: CrossChainBody) => refusal(() => parseCrossChainPaymentRequest(b, scope())).field;
    expect(first(body({ agentId: 7, metadata: "x" }))).toBe("agentId");
    expect(first(body({ metadata: "x", callbackUrl: "x" }))).toBe("metadata");
    expect(first(body({ callbackUrl: "x", expiresIn: 1 }))).toBe("callbackUrl");
    expect(first(body({ expiresIn: 1, successUrl: "x" }))).toBe("expiresIn");
    expect(first(body({ successUrl: "x", originCurrency: "ZZZ" }))).toBe("successUrl");
  });
});

describe("resolveCrossChainRoute: the destination, from the parsed route and the merchant's wallets", () => {
  const parsed = (over: Partial<CrossChainBody> = {}) => parseCrossChainPaymentRequest(body(over), scope()).route;
  const wallet = (c: Config, ...names: string[]) => new Map(names.map((n) => [net(c, n).id, "0x" + "77".repeat(20)]));

  test("by default the first reachable network with a wallet; its token the origin's symbol, else USDC", () => {
    const route = resolveCrossChainRoute(config, "test", wallet(config, "anvil"), parsed({ originCurrency: "USDC" }));
    expect([route.destination.shortName, route.destinationToken.symbol]).toEqual(["anvil", "USDC"]);
    expect(resolveCrossChainRoute(config, "test", wallet(config, "anvil"), parsed()).destinationToken.symbol).toBe("USDC");
    expect(resolveCrossChainRoute(config, "test", wallet(config, "anvil"), parsed({ currency: "usdt" })).destinationToken.symbol).toBe("USDT");
  });

  const refusals: Array<[string, () => unknown, { status: number; code: string | null; field: string | null; message: string }]> = [
    ["a named destination no bridge reaches", () => resolveCrossChainRoute(config, "test", wallet(config, "anvil-2"), parsed({ network: "anvil-2" })), { status: 422, code: "NO_DESTINATION", field: null, message: "No bridge is configured from Anvil 2 to Anvil 2." }],
    ["a named destination without a wallet", () => resolveCrossChainRoute(config, "test", new Map(), parsed({ network: "anvil" })), { status: 422, code: "NO_DESTINATION", field: null, message: "No settlement wallet is configured on Anvil; set one before accepting payments there." }],
    ["no wallet anywhere a bridge reaches", () => resolveCrossChainRoute(config, "test", new Map(), parsed()), { status: 422, code: "NO_DESTINATION", field: null, message: "No settlement wallet is configured on any network a bridge reaches from Anvil 2 (anvil)." }],
    [
      "no bridge from the origin at all",
      () => resolveCrossChainRoute(unbridged, "test", wallet(unbridged, "anvil"), { origin: net(unbridged, "anvil-2"), originToken: daiOn2, network: null, currency: undefined }),
      { status: 422, code: "NO_DESTINATION", field: null, message: "No bridge is configured from Anvil 2 to another network." },
    ],
    ["a destination token not there", () => resolveCrossChainRoute(config, "test", wallet(config, "anvil"), parsed({ currency: "dai" })), { status: 400, code: null, field: "currency", message: "Invalid field 'currency': DAI is not a token on Anvil (one of: USDC, USDT)" }],
    ["more decimals than the destination token", () => unitsOf(parseCrossChainPaymentRequest(body({ amount: "1.1234567" }), scope()).amount, 6), { status: 400, code: null, field: "amount", message: "Invalid field 'amount': at most 6 decimal places for this token" }],
    ["an amount too large for any token", () => unitsOf(parseCrossChainPaymentRequest(body({ amount: "1" + "0".repeat(78) }), scope()).amount, 6), { status: 400, code: null, field: "amount", message: "Invalid field 'amount': too large" }],
  ];
  for (const [name, run, expected] of refusals) {
    test(name, () => expect(refusal(run)).toEqual(expected));
  }
});
