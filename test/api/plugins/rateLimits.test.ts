import { describe, expect, test } from "bun:test";
import { clientIpOf, rateActionOf } from "../../../api/plugins/rateLimits.ts";
import { replayWindowOf } from "../../../domain/idempotency.ts";

describe("rateActionOf: which requests count, and as what", () => {
  test.each([
    // Creates, on both mounts, with or without a trailing slash.
    ["POST", "/api/v1/payments/create", "create"],
    ["POST", "/api/payments/create", "create"],
    ["POST", "/api/v1/payments/create/", "create"],
    ["POST", "/api/v1/deposits/create", "create"],
    ["POST", "/api/v1/payments/cross-chain/create", "create"],
    ["POST", "/api/sandbox/payments", "create"],
    // Everything else on the API and the checkout page is a read.
    ["GET", "/api/v1/payments/create", "read"],
    ["POST", "/api/v1/payments/fail", "read"],
    ["POST", "/api/v1/sandbox/payments/abc/simulate", "read"],
    ["GET", "/api/v1/payments/00000000-0000-4000-8000-000000000000/status", "read"],
    ["PUT", "/api/v1/merchants/agent-policies/bot", "read"],
    ["GET", "/api/v1/payments/public/x/events", "read"],
    ["GET", "/pay/00000000-0000-4000-8000-000000000000", "read"],
    ["POST", "/api/v1/payments/create-something", "read"],
    ["POST", "/api/v2/payments/create", "read"],
    // Not counted: probes, the bridges' signed webhooks, static assets, preflights, operators' routes.
    ["GET", "/api/health", null],
    ["GET", "/api/versions", null],
    ["POST", "/api/v1/webhooks/relay", null],
    ["POST", "/api/webhooks/relay", null],
    ["GET", "/pay/assets/1/checkout.js", null],
    ["OPTIONS", "/api/v1/payments/create", null],
    ["GET", "/metrics", null],
    ["GET", "/admin/queues", null],
    ["GET", "/docs", null],
    ["GET", "/", null],
  ] as const)("%s %s → %s", (method, path, expected) => {
    expect(rateActionOf(method, path)).toBe(expected);
  });
});

describe("clientIpOf", () => {
  const server = { requestIP: () => ({ address: "127.0.0.9" }) };
  const request = (headers: Record<string, string> = {}) => new Request("http://localhost/api/v1/networks", { headers });

  test("the connection's address without a configured header, whatever the client sends", () => {
    expect(clientIpOf(request({ "x-forwarded-for": "203.0.113.1" }), server, null)).toBe("127.0.0.9");
  });
  test("the configured header's last entry: the one the operator's proxy added", () => {
    expect(clientIpOf(request({ "x-forwarded-for": "198.51.100.1, 203.0.113.1" }), server, "x-forwarded-for")).toBe("203.0.113.1");
    expect(clientIpOf(request({ "x-forwarded-for": "203.0.113.1" }), server, "x-forwarded-for")).toBe("203.0.113.1");
    expect(clientIpOf(request({ "x-real-ip": " 2001:db8::1 " }), server, "x-real-ip")).toBe("2001:db8::1");
  });
  test("the header absent or empty: the connection's address", () => {
    expect(clientIpOf(request(), server, "x-forwarded-for")).toBe("127.0.0.9");
    expect(clientIpOf(request({ "x-forwarded-for": " , " }), server, "x-forwarded-for")).toBe("127.0.0.9");
  });
  test("bounded: a 10 KB header value cannot make a 10 KB key", () => {
    expect(clientIpOf(request({ "x-forwarded-for": "a".repeat(10_000) }), server, "x-forwarded-for")).toHaveLength(64);
  });
  test("no server (in-process) and no header: unknown", () => {
    expect(clientIpOf(request(), null, null)).toBeNull();
  });
});

describe("replayWindowOf: how long a key marks a retry", () => {
  test("a body fingerprint: the window; a header key or an order id: as long as keys are kept", () => {
    expect(replayWindowOf(`body:${"ab".repeat(32)}`, 60)).toBe(60);
    expect(replayWindowOf("header:body:x", 60)).toBeNull();
    expect(replayWindowOf("order:1001", 60)).toBeNull();
  });
});
