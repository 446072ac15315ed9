import { afterAll, beforeAll, expect, test } from "bun:test";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { isCreateRoute, malformedCreateAnswer, meetsExpectation, type ExpectedAnswer } from "../../../harness/hostileInput.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

// A generated run of hostile requests across every route the app serves: whatever comes
// in, the answer is a 4xx, a 503 with the error body, or the spec's deliberate 500 for an
// unknown payment on the status reads, and the app still answers afterwards. A request known
// to be wrong carries the answer it must get (`ExpectedAnswer`): a malformed create is
// refused (400, or 401 without valid credentials), never created.
// FUZZ_SEED=<n> replays a run; FUZZ_REQUESTS=<n> changes its length.
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 8;

// The generated run goes to a second app on the same database whose network has its contracts
// configured: a create is answered from the body alone (it signs and derives its address
// without the chain), so a malformed body that were taken would show as a 201.
const CONTRACTS = { settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" } as const;
let contracted: TestApi;
let api: TestApi;
let merchant: TestMerchant;
let bodyFields: Map<string, string[]>;

beforeAll(async () => {
  api = await createTestApi({ env: { OPERATOR_PRIVATE_KEY: `0x${"11".repeat(32)}` }, networks: [anvilNetwork("http://127.0.0.1:1")] });
  merchant = await api.seedMerchant();
  const anvil = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, anvil.id, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
  // The database is the first app's (it drops it).
  const shared = { url: api.databaseUrl, name: "", drop: async () => {} };
  contracted = await createTestApi({ env: { OPERATOR_PRIVATE_KEY: `0x${"11".repeat(32)}` }, networks: [anvilNetwork("http://127.0.0.1:1", CONTRACTS)], database: shared });
  // Each route's own body fields, from the OpenAPI document, so the bodies aim at what it reads.
  const doc = (await api.request("/docs/json")).body as { paths: Record<string, Record<string, any>> };
  bodyFields = new Map();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const properties = operation?.requestBody?.content?.["application/json"]?.schema?.properties;
      if (properties) bodyFields.set(`${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`, Object.keys(properties));
    }
  }
}, 60_000);

afterAll(async () => {
  await contracted?.close();
  await api?.close();
});

/** mulberry32: small, fast, and the same sequence for the same seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]!, chance: (p: number) => next() < p };
}

const MB_STRING = "m".repeat(1_000_000);
const OVER_LIMIT = "o".repeat(1_100_000);
const deepObject = (n: number): string => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const deepArray = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`;

const AMOUNTS: unknown[] = [
  "1e3", "1E-30", "1e309", "-1e3", `0.${"0".repeat(29)}1`, "10.123456789012345678901234567890", "0", "-0", "00010", " 10 ", "0x10", "1_000",
  "Infinity", "NaN", "", "١٠", "10\u200b", "9".repeat(80), 1e21, 1e-30, -1, 0, Number.MAX_SAFE_INTEGER + 2, true, null, [], {}, "10.5",
];
const STRINGS: unknown[] = [
  "", " ", "USDC", "USDT", "DOGE", "usdc", "anvil", "ethereum", "solana", "mainnet", "nonexistent-chain", "\u{1F600}".repeat(50), "Ω≈ç√∫", "\u202Eevil", "\uFEFF",
  "' OR 1=1 --", "<script>alert(1)</script>", "../../etc/passwd", "%00", "\\u0000", "javascript:alert(1)", "http://[::1]:1/", "https://example.com/hook",
  "00000000-0000-4000-8000-000000000000", "not-a-uuid", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", `0x${"ab".repeat(32)}`, "x".repeat(5_000),
  "2026-02-30", "2026-01-01T00:00:00Z", "1e400", "-5", "true",
];
const FIELD_POOL = [
  "amount", "currency", "network", "token", "orderId", "metadata", "expiresIn", "callbackUrl", "agentId", "originChainId", "originCurrency", "paymentId",
  "txHash", "status", "reason", "url", "events", "maxPerPayment", "dailyLimit", "allowedNetworks", "allowedTokens", "expiresAt", "active", "address",
  "description", "name", "customerEmail", "redirectUrl", "refundAddress", "__proto__", "constructor",
];
const SEGMENTS = [
  "0", "-1", "x".repeat(2_000), "%00", "%F0%9F%98%80", "'%20or%201=1%20--", "1e309", "00000000-0000-4000-8000-000000000000", "not-a-uuid",
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "%7B%7D", "..%2F..%2Fetc", "%E2%80%AE", "00000000-0000-0000-0000-00000000000g", "%25",
];
const QUERY_KEYS = ["limit", "startingAfter", "endingBefore", "status", "network", "orderId", "startDate", "endDate", "lang", "due", "currency", "amount", "mode", "from", "to"];

/** One field of a payment create broken beyond doubt (the payment-shaped creates: payments, deposits, sandbox). */
const BROKEN_FIELDS: Array<[string, unknown]> = [
  ["amount", "-1"], ["amount", "abc"], ["amount", ""], ["amount", "0"], ["amount", null], ["amount", []], ["amount", "1e309"],
  ["currency", ""], ["currency", 5], ["currency", "DOGE"], ["network", "nonexistent-chain"], ["network", null],
  ["expiresIn", -5], ["expiresIn", 1.5], ["callbackUrl", "javascript:alert(1)"], ["customerEmail", "not-an-email"], ["orderId", "o".repeat(300)],
];

type Case = { method: string; path: string; routePath: string; headers: Record<string, string>; body?: string; note: string; /** The answer it must get, when it is known to be wrong. */ expected?: ExpectedAnswer };

function generate(random: ReturnType<typeof prng>, routes: Array<{ method: string; path: string }>): Case {
  const route = random.pick(routes);
  const note: string[] = [];
  const uuid = () => "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => "0123456789abcdef"[random.int(16)]!);
  const path = route.path.replace(/:[^/]+/g, () => (random.chance(0.3) ? uuid() : random.pick(SEGMENTS)));
  const value = (): unknown => {
    switch (random.int(7)) {
      case 0: return random.pick(AMOUNTS);
      case 1: return random.pick(STRINGS);
      case 2: return random.chance(0.5) ? [random.pick(STRINGS), random.pick(AMOUNTS)] : { [random.pick(FIELD_POOL)]: random.pick(STRINGS) };
      case 3: return random.chance(0.02) ? MB_STRING : random.pick(STRINGS);
      case 4: return random.int(2 ** 31) * (random.chance(0.5) ? -1 : 1);
      default: return random.pick([null, true, false, 1.5, "", [], {}]);
    }
  };
  let query = "";
  const queryParts = random.int(4);
  for (let i = 0; i < queryParts; i++) {
    const raw = random.pick(STRINGS);
    query += `${i ? "&" : "?"}${random.pick(QUERY_KEYS)}${random.chance(0.2) ? "[]" : ""}=${encodeURIComponent(String(raw))}`;
  }
  const headers: Record<string, string> = {};
  const credentialCase = random.int(7);
  // Cases 1–4 are keys the app knows (2 and 4 live ones); 0, 5 and the default are not credentials.
  const credentials = { valid: credentialCase >= 1 && credentialCase <= 4, live: credentialCase === 2 || credentialCase === 4 };
  const create = isCreateRoute(route.method, route.path);
  let malformed: string | null = null;
  let oversized: ExpectedAnswer = null;
  switch (credentialCase) {
    case 0: break;
    case 1: headers["X-Public-Key"] = merchant.publicKey; break;
    case 2: headers["X-Public-Key"] = merchant.livePublicKey; break;
    case 3: Object.assign(headers, { "X-API-Key": merchant.testApiKey, "X-API-Secret": merchant.testApiSecret }); break;
    case 4: Object.assign(headers, { "X-API-Key": merchant.apiKey, "X-API-Secret": merchant.apiSecret }); break;
    case 5: Object.assign(headers, { "X-API-Key": merchant.testApiKey, "X-API-Secret": "wrong" }); break;
    default: Object.assign(headers, { "X-Public-Key": "pk_test_\u00ff\u00fe".repeat(random.int(50)), "X-API-Key": "'; drop table--" });
  }
  note.push(`auth#${Object.keys(headers).join("+") || "none"}`);
  if (random.chance(0.2)) headers["Idempotency-Key"] = random.pick(["k", "x".repeat(300), "\u00e9", `key-${random.int(1_000)}`]);
  if (random.chance(0.1)) headers["X-Agent-Id"] = String(random.pick(STRINGS)).replace(/[^\x20-\x7e]/g, "?").slice(0, 2_000);
  if (random.chance(0.03)) {
    headers["X-Padding"] = "h".repeat(20_000 + random.int(50_000));
    note.push("oversized header");
    oversized = { statuses: [431], why: "headers over 16 KiB" };
  }

  let body: string | undefined;
  if (route.method !== "GET" || random.chance(0.05)) {
    const fields = bodyFields.get(`${route.method} ${route.path.replace(/^\/api\/(?!v1\/)/, "/api/v1/")}`) ?? [];
    const kind = random.int(10);
    headers["content-type"] = random.chance(0.9) ? "application/json" : random.pick(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16"]);
    if (!headers["content-type"].startsWith("application/json")) malformed = `a ${headers["content-type"]} body`;
    if (kind === 0) {
      body = random.pick(['{"amount":', "{", "[", "nul", "{'a':1}", '{"a":1,}', "\u0000", '{"amount":"10"}garbage', "\ud800", "NaN", ""]);
      note.push("invalid JSON");
      malformed = "invalid JSON";
    } else if (kind === 1) {
      body = random.chance(0.5) ? deepObject(1_000 + random.int(20_000)) : deepArray(1_000 + random.int(20_000));
      note.push("deep nesting");
      malformed = "a body nested too deep";
    } else if (kind === 2 && random.chance(0.2)) {
      body = JSON.stringify({ amount: "10", currency: "USDC", network: "anvil", orderId: OVER_LIMIT });
      note.push("over the body limit");
      if (route.method !== "GET") oversized ??= { statuses: [413], why: "a body over 1 MiB" };
    } else if (kind === 3 && create && !route.path.endsWith("/cross-chain/create")) {
      // A create valid but for one field broken beyond doubt (a deposit's window is fixed: its expiresIn is ignored).
      const broken = BROKEN_FIELDS.filter(([field]) => field !== "expiresIn" || !route.path.endsWith("/deposits/create"));
      const [field, bad] = random.pick(broken);
      body = JSON.stringify({ amount: "10", currency: "USDC", network: "anvil", [field]: bad });
      note.push(`broken ${field}`);
      malformed = `a create with a broken ${field}`;
    } else {
      // A mostly-valid body with hostile values in the route's own fields and some foreign ones.
      const object: Record<string, unknown> = { amount: "10", currency: "USDC", network: "anvil" };
      for (const field of fields) if (random.chance(0.7)) object[field] = value();
      for (let i = random.int(3); i > 0; i--) object[random.pick(FIELD_POOL)] = value();
      const wrapped = random.chance(0.05);
      body = wrapped ? JSON.stringify([object]) : JSON.stringify(object);
      if (wrapped) malformed = "an array for a body";
    }
  }
  const expected = oversized ?? (create && malformed ? malformedCreateAnswer(route.path, credentials, malformed, "Idempotency-Key" in headers) : null);
  return { method: route.method, path: path + query, routePath: route.path, headers, body, note: note.join(", "), expected };
}

async function send(c: Case, app: TestApi["app"] = api.app): Promise<{ status: number; body: any }> {
  // Sent with its length, as an HTTP client does.
  const headers = c.body === undefined ? c.headers : { ...c.headers, "content-length": String(Buffer.byteLength(c.body)) };
  const response = await app.handle(new Request(`http://localhost${c.path}`, { method: c.method, headers, body: c.body }));
  // A live stream never ends: its status is the answer.
  if (response.headers.get("content-type")?.includes("text/event-stream")) {
    await response.body?.cancel();
    return { status: response.status, body: null };
  }
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

test(`${REQUESTS} generated hostile requests across every route: no 5xx but the spec's, and the app still answers`, async () => {
  console.log(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} bun test test/api/requests/fuzz.test.ts)`);
  const random = prng(SEED);
  const routes = (api.app.routes as Array<{ method: string; path: string }>).filter((r) => r.method !== "OPTIONS" && !r.path.includes("*"));
  expect(routes.length).toBeGreaterThan(80);
  const cases = Array.from({ length: REQUESTS }, () => generate(random, routes));
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let expectedCases = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < cases.length) {
        const index = next++;
        const c = cases[index]!;
        const { status, body } = await send(c, contracted.app);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (c.expected) expectedCases++;
        if (!meetsExpectation(c.expected ?? null, c.routePath, status, body))
          failures.push(
            `#${index} ${c.method} ${c.path.slice(0, 100)} [${c.note}] body=${(c.body ?? "").slice(0, 120)} → ${status}${c.expected ? ` (expected ${c.expected.statuses.join(" or ")}: ${c.expected.why})` : ""} ${JSON.stringify(body).slice(0, 200)}`,
          );
      }
    }),
  );
  console.log(`statuses: ${[...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(" ")}; ${expectedCases} held to an expected answer`);
  expect(failures.slice(0, 20)).toEqual([]);
  expect(failures.length).toBe(0);
  // The run held a share of its requests to their own answer (malformed creates, oversized requests).
  if (REQUESTS >= 1_000) expect(expectedCases).toBeGreaterThan(REQUESTS / 200);
  // Still answering, and with the right thing.
  const after = await api.request("/api/v1/networks", { headers: { "X-Public-Key": merchant.publicKey } });
  expect(after.status).toBe(200);
}, 120_000);

test("the request limits answer with the error body: 413 over 1 MiB, 431 over 16 KiB of headers, 400 nested deeper than 32", async () => {
  const auth = { "X-API-Key": merchant.testApiKey, "X-API-Secret": merchant.testApiSecret, "content-type": "application/json" };
  const big = JSON.stringify({ amount: "10", currency: "USDC", network: "anvil", orderId: OVER_LIMIT });
  const tooBig = await send({ method: "POST", path: "/api/v1/payments/create", routePath: "", headers: auth, body: big, note: "" });
  expect(tooBig).toEqual({ status: 413, body: { success: false, error: "payload_too_large", message: "Request body is over 1048576 bytes." } });
  // Just under the limit reaches the route, whose own validation answers.
  const under = JSON.stringify({ amount: "10", currency: "USDC", network: "anvil", orderId: MB_STRING });
  expect((await send({ method: "POST", path: "/api/v1/payments/create", routePath: "", headers: auth, body: under, note: "" })).status).toBe(400);
  const headers = await send({ method: "GET", path: "/api/v1/networks", routePath: "", headers: { ...auth, "X-Padding": "h".repeat(17_000) }, body: undefined, note: "" });
  expect(headers).toEqual({ status: 431, body: { success: false, error: "request_header_fields_too_large", message: "Request headers are over 16384 bytes." } });
  const deep = await send({ method: "POST", path: "/api/v1/payments/create", routePath: "", headers: auth, body: deepArray(20_000), note: "" });
  expect(deep).toEqual({ status: 400, body: { success: false, error: "invalid_request", message: "Invalid request body: nested deeper than 32 levels" } });
  // Metadata nested as deep as a merchant plausibly sends is still taken.
  const nested = JSON.stringify({ amount: "10", currency: "USDC", network: "anvil", metadata: JSON.parse(deepObject(10)) });
  expect((await send({ method: "POST", path: "/api/v1/payments/create", routePath: "", headers: auth, body: nested, note: "" })).body?.error).not.toBe("invalid_request");
});
