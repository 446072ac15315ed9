import { describe, expect, test } from "bun:test";
import { parseCreatePaymentRequest, type CreatePaymentBody, type CreatePaymentScope } from "../../../api/requests/createPaymentRequest.ts";

import { AppError, ValidationError } from "../../../domain/errors.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { buildConfig } from "../../../plugins/config.ts";

const USDC = "0x" + "33".repeat(20);
const config = buildConfig(
  { APP_ENV: "test" },
  {
    extraNetworks: [
      anvilNetwork("http://127.0.0.1:8545", {
        settlementContract: "0x" + "11".repeat(20),
        forwarderFactory: "0x" + "22".repeat(20),
        tokens: [
          { symbol: "USDC", name: "USD Coin", address: USDC, decimals: 6 },
          { symbol: "USDT", name: "Tether USD", address: "0x" + "44".repeat(20), decimals: 6 },
        ],
      }),
      // No contracts: neither kind of payment can be created there.
      anvilNetwork("http://127.0.0.1:8546", { name: "Anvil 2", shortName: "anvil-2", chainId: "31338" }),
    ],
  },
);

const scope = (over: Partial<CreatePaymentScope> = {}): CreatePaymentScope => ({ config, auth: { mode: "test", scheme: "api_key" }, kind: "payment", agentHeader: undefined, ...over });
const body = (over: Partial<CreatePaymentBody> = {}): CreatePaymentBody => ({ amount: "10.50", currency: "USDC", network: "anvil", ...over });

/** The error a body is refused with: HTTP status, the field it names (400s), and the text. */
function refusal(b: CreatePaymentBody, s: CreatePaymentScope = scope()) {
  try {
    parseCreatePaymentRequest(b, s);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.status, field: error instanceof ValidationError ? error.field : null, message: error.message };
  }
  throw new Error("accepted");
}

describe("parseCreatePaymentRequest: what a valid body becomes", () => {
  test("a token-priced body: network, token, units, and the merchant's fields as given", () => {
    const request = parseCreatePaymentRequest(
      body({ amount: 10.5, currency: " usdc ", orderId: "o-1", customerEmail: "a@b.example", callbackUrl: "https://m.example/hook", successUrl: "https://shop.example/ok", metadata: { a: [1, { b: null }] }, expiresIn: 600 }),
      scope(),
    );
    expect(request.network.shortName).toBe("anvil");
    expect(request.token.address).toBe(USDC);
    expect(request.price).toEqual({ units: 10_500_000n, fiat: null });
    expect(request).toMatchObject({ currency: "USDC", orderId: "o-1", customerEmail: "a@b.example", callbackUrl: "https://m.example/hook", metadata: { a: [1, { b: null }] }, expiresIn: 600, agentId: null, agentOwner: null });
    expect(request.returnUrls.successUrl?.text).toBe("https://shop.example/ok");
    expect(request.returnUrls.successUrl?.url.origin).toBe("https://shop.example");
    expect(request.returnUrls.cancelUrl).toBeNull();
  });

  test("absent fields: defaults (expiry, empty metadata, nulls); a deposit's fixed expiry wins over the body's", () => {
    expect(parseCreatePaymentRequest(body(), scope())).toMatchObject({ expiresIn: 1800, metadata: {}, callbackUrl: null, orderId: null, customerEmail: null, returnUrls: { successUrl: null, cancelUrl: null } });
    expect(parseCreatePaymentRequest(body({ expiresIn: 5 }), scope({ kind: "deposit", fixedExpiresIn: 900 })).expiresIn).toBe(900);
  });

  test("priced in fiat: the fiat amount and currency, no units yet", () => {
    const request = parseCreatePaymentRequest(body({ amount: "12.345", currency: "eur", token: "USDC" }), scope());
    expect(request.price).toEqual({ units: null, fiat: { value: { units: 12_345n, scale: 3 }, currency: "EUR" } });
    expect(request.currency).toBe("EUR");
  });

  test("the agent from the header or the body (trimmed), and its owner", () => {
    expect(parseCreatePaymentRequest(body({ agentId: " bot-1 ", agentOwner: "team_a" }), scope())).toMatchObject({ agentId: "bot-1", agentOwner: "team_a" });
    expect(parseCreatePaymentRequest(body({ agentId: "bot-1" }), scope({ agentHeader: "bot-1" })).agentId).toBe("bot-1");
    expect(parseCreatePaymentRequest(body(), scope({ agentHeader: "  " })).agentId).toBeNull();
  });
});

describe("parseCreatePaymentRequest: every refusal, with its status, field and text", () => {
  const big = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
  const deep = { a: { b: { c: { d: { e: { f: 1 } } } } } };
  const cases: Array<[string, CreatePaymentBody, CreatePaymentScope, number, string | null, string]> = [
    ["unknown network", body({ network: "mars" }), scope(), 400, "network", `Invalid field 'network': unknown or disabled network "mars" for test mode (one of: anvil, anvil-2)`],
    ["a live network with a test key", body({ network: "base" }), scope(), 400, "network", `Invalid field 'network': unknown or disabled network "base" for test mode (one of: anvil, anvil-2)`],
    ["fiat without token", body({ currency: "EUR" }), scope(), 400, "token", "Invalid field 'token': required when pricing in a fiat currency (EUR); name the stablecoin to pay in (one of: USDC, USDT)"],
    ["a token not accepted", body({ token: "DAI", currency: "DAI" }), scope(), 400, "token", "Invalid field 'token': DAI is not accepted on Anvil (one of: USDC, USDT)"],
    ["a currency not accepted", body({ currency: "USDCE" }), scope(), 400, "currency", "Invalid field 'currency': USDCE is not accepted on Anvil (one of: USDC, USDT)"],
    ["currency and token disagree", body({ currency: "USDT", token: "USDC" }), scope(), 400, "currency", "Invalid field 'currency': USDT does not match token USDC (and is not a 3-letter fiat currency code)"],
    ["no contracts on the network", body({ network: "anvil-2" }), scope(), 503, null, "Anvil 2 cannot accept payments yet: its settlement contracts are not configured"],
    ["an amount that is no number", body({ amount: "ten" }), scope(), 400, "amount", `Invalid field 'amount': expected a positive decimal amount such as "10.50"`],
    ["a negative amount", body({ amount: -1 }), scope(), 400, "amount", `Invalid field 'amount': expected a positive decimal amount such as "10.50"`],
    ["more decimals than the token", body({ amount: "1.0000001" }), scope(), 400, "amount", "Invalid field 'amount': at most 6 decimal places for this token"],
    ["a zero amount", body({ amount: "0.000" }), scope(), 400, "amount", "Invalid field 'amount': must be greater than 0"],
    ["a huge amount", body({ amount: "9".repeat(80) }), scope(), 400, "amount", "Invalid field 'amount': too large"],
    ["a JSON number past a double's digits", body({ amount: 12345678901234567890 }), scope(), 400, "amount", "Invalid field 'amount': too many digits for a JSON number; send the amount as a string"],
    ["a bad X-Agent-Id", body(), scope({ agentHeader: "a b" }), 400, "X-Agent-Id", "Invalid header 'X-Agent-Id': 1 to 200 visible ASCII characters, no spaces"],
    ["a bad agentId", body({ agentId: "" }), scope(), 400, "agentId", "Invalid field 'agentId': 1 to 200 visible ASCII characters, no spaces"],
    ["agentId and header disagree", body({ agentId: "bot-2" }), scope({ agentHeader: "bot-1" }), 400, "agentId", `Invalid field 'agentId': "bot-2" differs from the X-Agent-Id header "bot-1"`],
    ["a bad agentOwner", body({ agentId: "bot", agentOwner: "a b" }), scope(), 400, "agentOwner", "Invalid field 'agentOwner': 1 to 100 letters, digits, '_' or '-'"],
    ["agentOwner without an agent", body({ agentOwner: "team" }), scope(), 400, "agentOwner", "Invalid field 'agentOwner': names the owner of an agent; send agentId (or X-Agent-Id) with it"],
    ["metadata not an object", body({ metadata: [1] }), scope(), 400, "metadata", "Invalid field 'metadata': expected a JSON object"],
    ["metadata with 51 keys", body({ metadata: big }), scope(), 400, "metadata", "Invalid field 'metadata': at most 50 keys"],
    ["a metadata key too long", body({ metadata: { ["k".repeat(101)]: 1 } }), scope(), 400, `metadata.${"k".repeat(101)}`, "Invalid field 'metadata': keys are 1 to 100 characters"],
    ["metadata too deep", body({ metadata: deep }), scope(), 400, "metadata", "Invalid field 'metadata': nests deeper than 5 levels"],
    ["metadata too large", body({ metadata: { a: "x".repeat(17 * 1024) } }), scope(), 400, "metadata", "Invalid field 'metadata': larger than 16 KiB as JSON"],
    ["a callbackUrl that is no URL", body({ callbackUrl: "hook" }), scope(), 400, "callbackUrl", "Invalid field 'callbackUrl': not a URL"],
    ["a callbackUrl that is not http(s)", body({ callbackUrl: "ftp://m.example/x" }), scope(), 400, "callbackUrl", "Invalid field 'callbackUrl': must be an http or https URL"],
    ["expiresIn too short", body({ expiresIn: 59 }), scope(), 400, "expiresIn", "Invalid field 'expiresIn': seconds between 60 and 604800"],
    ["expiresIn past a public key's maximum", body({ expiresIn: 86401 }), scope({ auth: { mode: "test", scheme: "public_key" } }), 400, "expiresIn", "Invalid field 'expiresIn': seconds between 60 and 86400 with a public key (up to 604800 with the API key and secret)"],
    ["a successUrl that is no URL", body({ successUrl: "ok" }), scope(), 400, "successUrl", "Invalid field 'successUrl': not a URL"],
    ["a cancelUrl that is not http(s)", body({ cancelUrl: "javascript:alert(1)" }), scope(), 400, "cancelUrl", "Invalid field 'cancelUrl': must be an http or https URL"],
    ["a fiat amount that is no number", body({ currency: "EUR", token: "USDC", amount: "-3" }), scope(), 400, "amount", `Invalid field 'amount': expected a positive EUR amount such as "10.50" (at most 18 decimals)`],
    ["a fiat JSON number of more digits than a double holds", body({ currency: "EUR", token: "USDC", amount: 1e21 }), scope(), 400, "amount", "Invalid field 'amount': too many digits for a JSON number; send the amount as a string"],
  ];
  for (const [name, b, s, status, field, message] of cases) {
    test(name, () => expect(refusal(b, s)).toEqual({ status, field, message }));
  }

  test("fields are read in the order the service always checked them: the network before the amount, the agent before the URLs", () => {
    expect(refusal(body({ network: "mars", amount: "x" })).field).toBe("network");
    expect(refusal(body({ amount: "x", agentId: "" })).field).toBe("amount");
    expect(refusal(body({ agentId: "", callbackUrl: "x" })).field).toBe("agentId");
    expect(refusal(body({ callbackUrl: "x", expiresIn: 1 })).field).toBe("callbackUrl");
    expect(refusal(body({ expiresIn: 1, successUrl: "x" })).field).toBe("expiresIn");
  });
});
