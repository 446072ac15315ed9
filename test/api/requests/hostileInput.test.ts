import { afterAll, beforeAll, expect, test } from "bun:test";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { allowedAnswer, apiRoutes, isCreateRoute, malformedCreateAnswer, meetsExpectation } from "../../../harness/hostileInput.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

// Whatever a caller sends, every route answers with the error body and a status the
// contract allows: a 4xx, the spec's 500 for an unknown payment on the status reads, or
// a 503 when a dependency (an RPC that does not answer here) is down. Never another 500.
// Contracts configured: a create is answered from the body alone (it signs and derives its
// address without the chain), so a malformed body that were taken would show as a 201.
const CONTRACTS = { settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" } as const;
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  // The network's RPC answers nothing: routes that need the chain must say so with a 503.
  api = await createTestApi({ env: { OPERATOR_PRIVATE_KEY: `0x${"11".repeat(32)}` }, networks: [anvilNetwork("http://127.0.0.1:1", CONTRACTS)] });
  merchant = await api.seedMerchant();
  const anvil = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, anvil.id, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const SEGMENTS = [
  "0",
  "-1",
  "x".repeat(2_000),
  "%00",
  "%F0%9F%98%80",
  "'%20or%201=1%20--",
  "1e309",
  "00000000-0000-4000-8000-000000000000",
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "%7B%7D",
];

const deep = (n: number): unknown => (n === 0 ? "x" : { a: deep(n - 1) });
const valid = { amount: "10", currency: "USDC", network: "anvil" };
/**
 * Each body with the creates that must refuse it (a 400 naming the field, never a 201):
 * `creates` every one; `creates but deposits` all but /deposits/create (whose fixed window
 * ignores expiresIn); `cross-chain` only the cross-chain create (the others take its shape);
 * `none` a body a create may take. Other routes: any answer `allowedAnswer` takes.
 */
type MalformedFor = "creates" | "creates but deposits" | "cross-chain" | "none";
const BODIES: Array<[unknown, MalformedFor]> = [
  [{}, "creates"],
  [[], "creates"],
  [null, "creates"],
  ["a string", "creates"],
  [12345, "creates"],
  [{ ...valid, amount: "1e309" }, "creates"],
  [{ ...valid, amount: "0.0000000000000000000000000001" }, "creates"],
  [{ ...valid, amount: "9".repeat(200) }, "creates"],
  [{ ...valid, amount: -1 }, "creates"],
  [{ ...valid, amount: 1e308 }, "creates"],
  [{ ...valid, amount: "10", currency: "NGN" }, "cross-chain"],
  [{ ...valid, network: { $ne: null } }, "creates"],
  [{ ...valid, currency: "\u0000USDC" }, "creates"],
  [{ ...valid, orderId: "o".repeat(10_000) }, "creates"],
  [{ ...valid, metadata: deep(200) }, "creates"],
  [{ ...valid, metadata: "not an object" }, "creates"],
  [{ ...valid, expiresIn: 1e20 }, "creates but deposits"],
  [{ ...valid, callbackUrl: "javascript:alert(1)" }, "creates"],
  [{ ...valid, agentId: "a".repeat(5_000) }, "creates"],
  [{ amount: "10", originChainId: 1e20, originCurrency: "USDC", expiresIn: -5 }, "creates"],
  [{ amount: "10", originChainId: -31338, originCurrency: { $ne: null }, network: ["anvil"] }, "creates"],
  [{ amount: "10", originChainId: 31337, originCurrency: "USDC", network: "anvil", currency: "\u0000" }, "creates"],
  [JSON.parse('{"__proto__": {"polluted": true}, "amount": "10", "currency": "USDC", "network": "anvil"}'), "cross-chain"],
  [{ paymentId: "00000000-0000-4000-8000-000000000000", txHash: `0x${"ab".repeat(32)}`, status: "failed", action: { x: 1 } }, "creates"],
  [{ paymentId: 7, txHash: "0x", status: null, address: "0x0000000000000000000000000000000000000000", url: "http://[::1]/", events: "*" }, "creates"],
  [{ maxPerPayment: "-5", dailyLimit: "1e400", allowedNetworks: [null], allowedTokens: [{}], expiresAt: "2026-02-30", active: "yes" }, "creates"],
];

/** Whether the create at `routePath` must refuse a body marked `malformedFor`. */
function refuses(malformedFor: MalformedFor, routePath: string): boolean {
  if (malformedFor === "creates") return true;
  if (malformedFor === "creates but deposits") return !routePath.endsWith("/deposits/create");
  return malformedFor === "cross-chain" && routePath.endsWith("/cross-chain/create");
}

const QUERIES = ["", "?limit=1e309", "?limit=-1&startingAfter=%00", "?startDate=2026-02-30&endDate=x", "?status[]=a&network=%F0%9F%98%80", `?orderId=${"q".repeat(3_000)}`, "?startingAfter=x&endingBefore=y", "?orderId=%00%", "?orderId=a%00%ZZ"];

const allowed = allowedAnswer;
const routes = () => apiRoutes(api.app).filter((r) => r.path.startsWith("/api/v1/"));

const credentialSets = (): Array<Record<string, string>> => [
  { "X-Public-Key": merchant.publicKey },
  { "X-API-Key": merchant.testApiKey, "X-API-Secret": merchant.testApiSecret },
  { "X-API-Key": merchant.apiKey, "X-API-Secret": merchant.apiSecret },
];
const isLive = (headers: Record<string, string>) => headers["X-API-Key"] === merchant.apiKey;

test("no route answers an unhandled 500 to hostile path segments and queries", async () => {
  const failures: string[] = [];
  for (const route of routes()) {
    for (const segment of route.path.includes(":") ? SEGMENTS : [""]) {
      const path = route.path.replace(/:[^/]+/g, segment);
      for (const query of QUERIES) {
        for (const headers of credentialSets()) {
          const response = await api.request(path + query, { method: route.method, headers, body: route.method === "GET" || route.method === "DELETE" ? undefined : valid });
          if (!allowed(route.path, response.status, response.body)) failures.push(`${route.method} ${path.slice(0, 80)}${query.slice(0, 40)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`);
        }
      }
    }
  }
  expect(failures).toEqual([]);
}, 120_000);

test("no route answers an unhandled 500 to hostile bodies; a create refuses every malformed one", async () => {
  const failures: string[] = [];
  let refusalsChecked = 0;
  for (const route of routes().filter((r) => r.method === "POST" || r.method === "PUT" || r.method === "DELETE")) {
    const path = route.path.replace(/:[^/]+/g, "00000000-0000-4000-8000-000000000000");
    for (const [body, malformedFor] of BODIES) {
      for (const headers of credentialSets()) {
        const mustRefuse = isCreateRoute(route.method, route.path) && refuses(malformedFor, route.path);
        const expected = mustRefuse ? malformedCreateAnswer(route.path, { valid: true, live: isLive(headers) }, "a malformed create body") : null;
        if (mustRefuse) refusalsChecked++;
        const response = await api.request(path, { method: route.method, headers, body: JSON.stringify(body) });
        if (!meetsExpectation(expected, route.path, response.status, response.body))
          failures.push(`${route.method} ${path} ${JSON.stringify(body).slice(0, 80)} → ${response.status}${expected ? ` (expected ${expected.statuses.join(" or ")})` : ""} ${JSON.stringify(response.body).slice(0, 200)}`);
        expect(response.body).toMatchObject(response.status >= 400 ? { success: false } : {});
      }
    }
  }
  expect(failures).toEqual([]);
  // Every create was held to it: 4 creates × 3 credentials × the bodies each must refuse (282 today).
  expect(refusalsChecked).toBeGreaterThan(250);
  // Nothing a caller sent reached the prototype of every object.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 120_000);

test("the checkout page's routes answer a 4xx page or file to hostile path segments and queries, never a 500", async () => {
  const failures: string[] = [];
  const pageRoutes = (api.app.routes as Array<{ method: string; path: string }>).filter((r) => r.path.startsWith("/pay/") && r.method === "GET");
  expect(pageRoutes.map((r) => r.path).sort()).toEqual(["/pay/:paymentId", "/pay/:paymentId/qr.svg", "/pay/assets/:version/:file"]);
  for (const route of pageRoutes) {
    for (const segment of SEGMENTS) {
      const path = route.path.replace(/:[^/]+/g, segment);
      for (const query of ["", "?lang=%00", `?lang=${"x".repeat(3_000)}`, "?lang[]=es", "?due=%F0%9F%98%80"]) {
        const response = await api.app.handle(new Request(`http://localhost${path}${query}`, { headers: { "accept-language": "%00;q=x, *;q=-1" } }));
        if (response.status >= 500 || response.status === 200) failures.push(`GET ${path.slice(0, 80)}${query.slice(0, 40)} → ${response.status}`);
      }
    }
  }
  expect(failures).toEqual([]);
}, 60_000);
