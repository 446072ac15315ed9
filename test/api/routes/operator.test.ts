import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../../config/logger.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

const TOKEN = "op_0123456789abcdef0123456789abcdef";
const bearer = { authorization: `Bearer ${TOKEN}` };
const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString("base64")}` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Elysia runs after-response hooks (the request log line, the latency metric) once the answer is out: give them a moment. */
const afterResponses = () => Bun.sleep(50);

/** Log lines the app wrote, parsed. */
const lines: Array<Record<string, any>> = [];
const capture = { write: (chunk: string) => void lines.push(JSON.parse(chunk)) };

describe("with an operator token", () => {
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(async () => {
    api = await createTestApi({ env: { OPERATOR_TOKEN: TOKEN }, logger: createLogger({ level: "info", destination: capture }) });
    merchant = await api.seedMerchant();
  });
  afterAll(async () => {
    await api?.close();
  });

  describe("GET /metrics", () => {
    test("no credentials, a wrong token, a public key: 401 with a Basic challenge", async () => {
      const attempts: Array<Record<string, string>> = [{}, { authorization: "Bearer wrong-token-wrong-token" }, basic("nope"), { "X-Public-Key": merchant.publicKey }, { authorization: `Bearer ${TOKEN}x` }];
      for (const headers of attempts) {
        const response = await api.request("/metrics", { headers });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe('Basic realm="stablepay operators", charset="UTF-8"');
        expect(response.body).toEqual({
          success: false,
          error: "operator_token_required",
          message: "Send the operator token: Authorization: Bearer <OPERATOR_TOKEN> (or HTTP Basic with it as the password).",
        });
      }
    });

    test("the token as Bearer or as a Basic password: Prometheus text", async () => {
      for (const headers of [bearer, basic(TOKEN)]) {
        const response = await api.request("/metrics", { headers });
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
        expect(response.body).toContain("# TYPE stablepay_http_request_duration_seconds histogram");
        expect(response.body).toContain("# TYPE process_cpu_seconds_total counter");
      }
    });

    test("API latency is labelled by route template and status class, never by the raw path", async () => {
      const id = "7b1c2a4e-0d7e-4a55-8f5e-3d1c2b3a4f5e";
      // Counts are read before and after: the registry is the process's, shared with other test files.
      const counts = async () => {
        await afterResponses();
        const text: string = (await api.request("/metrics", { headers: bearer })).body;
        const count = (route: string, status: string) =>
          Number(new RegExp(`^stablepay_http_request_duration_seconds_count\\{method="GET",route="${route.replaceAll("/", "\\/")}",status_class="${status}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
        return {
          text,
          status5xx: count("/api/v1/payments/:paymentId/status", "5xx"),
          networks2xx: count("/api/v1/networks", "2xx"),
          networks4xx: count("/api/v1/networks", "4xx"),
          unmatched4xx: count("unmatched", "4xx"),
        };
      };
      const before = await counts();
      expect((await api.request(`/api/v1/payments/${id}/status`, { headers: { "X-Public-Key": merchant.publicKey } })).status).toBe(500);
      expect((await api.request("/api/v1/networks", { headers: { "X-Public-Key": merchant.publicKey } })).status).toBe(200);
      expect((await api.request("/api/v1/networks")).status).toBe(401);
      expect((await api.request(`/api/v1/no/such/${id}`)).status).toBe(404);
      const after = await counts();
      expect(after.status5xx - before.status5xx).toBe(1);
      expect(after.networks2xx - before.networks2xx).toBe(1);
      expect(after.networks4xx - before.networks4xx).toBe(1);
      expect(after.unmatched4xx - before.unmatched4xx).toBe(1);
      expect(after.text).not.toContain(id);
    });
  });

  test("hostile credentials are a 401, never a 500", async () => {
    const hostile = ["Bearer", "Bearer ", "Basic", "Basic !!!not-base64!!!", `Basic ${Buffer.from("no-colon").toString("base64")}`, `Bearer ${"x".repeat(10_000)}`, "Digest abc", `Basic ${Buffer.from(":").toString("base64")}`];
    for (const authorization of hostile) {
      for (const path of ["/metrics", "/admin/queues", "/admin/queues/api/queues"]) {
        const response = await api.request(path, { headers: { authorization } });
        expect(response.status).toBe(401);
        expect(response.body.error).toBe("operator_token_required");
      }
    }
  });

  describe("request ids and request logs", () => {
    test("a sane X-Request-Id is kept; otherwise one is made; either way it is returned and logged", async () => {
      await afterResponses();
      lines.length = 0;
      const kept = await api.request("/api/versions", { headers: { "X-Request-Id": "req-42.abc" } });
      expect(kept.headers.get("x-request-id")).toBe("req-42.abc");
      const made = await api.request("/api/versions");
      expect(made.headers.get("x-request-id")).toMatch(UUID);
      const refused = await api.request("/api/versions", { headers: { "X-Request-Id": "has spaces and \"quotes\"" } });
      expect(refused.headers.get("x-request-id")).toMatch(UUID);
      const tooLong = await api.request("/api/versions", { headers: { "X-Request-Id": "a".repeat(129) } });
      expect(tooLong.headers.get("x-request-id")).toMatch(UUID);
      await afterResponses();

      const requests = lines.filter((l) => l.msg === "request");
      expect(requests.map((l) => l.requestId)).toEqual([
        "req-42.abc",
        made.headers.get("x-request-id"),
        refused.headers.get("x-request-id"),
        tooLong.headers.get("x-request-id"),
      ]);
      for (const line of requests) {
        expect(line).toMatchObject({ level: 30, method: "GET", route: "/api/versions", status: 200 });
        expect(typeof line.latencyMs).toBe("number");
        expect(line.latencyMs).toBeGreaterThanOrEqual(0);
      }
    });

    test("error responses carry the id too, and so does every line logged while handling the request", async () => {
      await afterResponses();
      lines.length = 0;
      const response = await api.request("/api/v1/payments/7b1c2a4e-0d7e-4a55-8f5e-3d1c2b3a4f5e/status", {
        headers: { "X-Public-Key": merchant.publicKey, "X-Request-Id": "trace-500" },
      });
      expect(response.status).toBe(500);
      expect(response.headers.get("x-request-id")).toBe("trace-500");
      const unauthorized = await api.request("/api/v1/networks", { headers: { "X-Request-Id": "trace-401" } });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get("x-request-id")).toBe("trace-401");
      await afterResponses();
      expect(lines.filter((l) => l.msg === "request").map((l) => [l.requestId, l.route, l.status])).toEqual([
        ["trace-500", "/api/v1/payments/:paymentId/status", 500],
        ["trace-401", "/api/v1/networks", 401],
      ]);
      // The failed lookup is logged (the spec's 500) beside the request line, with the request's id.
      expect(lines.filter((l) => l.msg !== "request").map((l) => [l.msg, l.requestId])).toEqual([["request failed", "trace-500"]]);
      for (const line of lines) expect(["trace-500", "trace-401"]).toContain(line.requestId);
    });

    test("concurrent requests never get each other's ids", async () => {
      await afterResponses();
      lines.length = 0;
      const ids = Array.from({ length: 20 }, (_, i) => `concurrent-${i}`);
      const answers = await Promise.all(ids.map((id) => api.request("/api/v1/networks", { headers: { "X-Public-Key": merchant.publicKey, "X-Request-Id": id } })));
      expect(answers.map((a) => a.headers.get("x-request-id"))).toEqual(ids);
      await afterResponses();
      expect(lines.filter((l) => l.msg === "request").map((l) => l.requestId).sort()).toEqual([...ids].sort());
    });
  });

  describe("queue dashboard at /admin/queues", () => {
    test("refused without the token", async () => {
      for (const path of ["/admin/queues", "/admin/queues/api/queues"]) {
        const response = await api.request(path);
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toContain("Basic");
      }
      expect((await api.request("/admin/queues", { headers: basic("wrong") })).status).toBe(401);
    });

    test("a browser with the token as its Basic password gets the dashboard", async () => {
      const response = await api.request("/admin/queues", { headers: basic(TOKEN) });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/html");
      expect(response.body).toContain("stablepay queues");
    });

    test("lists every queue, read-only by default", async () => {
      const response = await api.request("/admin/queues/api/queues", { headers: bearer });
      expect(response.status).toBe(200);
      const queues = response.body.queues as Array<{ name: string; readOnlyMode: boolean }>;
      expect(queues.map((q) => q.name).sort()).toEqual(["bridge", "maintenance", "reconcile", "transfers", "webhook", "x402"]);
      expect(queues.every((q) => q.readOnlyMode)).toBe(true);
    });

    test("an unknown queue or path in the dashboard is a 4xx, not a 500", async () => {
      for (const path of ["/admin/queues/api/queues/nope/pause", "/admin/queues/api/queues/%00/x/retry/failed"]) {
        const response = await api.request(path, { method: "PUT", headers: bearer });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
      }
    });

    test("read-only: a write through the dashboard's API is refused and changes nothing", async () => {
      const response = await api.request("/admin/queues/api/queues/reconcile/pause", { method: "PUT", headers: bearer });
      expect(response.status).toBe(405);
      const queues = (await api.request("/admin/queues/api/queues", { headers: bearer })).body.queues as Array<{ name: string; isPaused: boolean }>;
      expect(queues.find((q) => q.name === "reconcile")?.isPaused).toBe(false);
    });
  });
});

describe("without an operator token", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  test("/metrics and /admin/queues are off: 404 naming the setting", async () => {
    for (const path of ["/metrics", "/admin/queues"]) {
      const response = await api.request(path, { headers: bearer });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: "not_found", message: `Operator endpoints are off: set OPERATOR_TOKEN to serve ${path}.` });
    }
  });
});

describe("QUEUE_DASHBOARD=read-write", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ env: { OPERATOR_TOKEN: TOKEN, QUEUE_DASHBOARD: "read-write" } });
    // The queues' Redis connection is still opening for a few ms after start (503 meanwhile, as for any caller).
    for (let i = 0; i < 100 && (await api.request("/admin/queues/api/queues", { headers: bearer })).status === 503; i++) await Bun.sleep(20);
  });
  afterAll(async () => {
    await api?.close();
  });

  test("the dashboard may pause and resume a queue", async () => {
    const list = async () => {
      const response = await api.request("/admin/queues/api/queues", { headers: bearer });
      expect({ status: response.status, body: response.status === 200 ? "ok" : response.body }).toEqual({ status: 200, body: "ok" });
      return response.body.queues as Array<{ name: string; readOnlyMode: boolean; isPaused: boolean }>;
    };
    expect((await list()).every((q) => !q.readOnlyMode)).toBe(true);
    expect((await api.request("/admin/queues/api/queues/maintenance/pause", { method: "PUT", headers: bearer })).status).toBe(200);
    expect((await list()).find((q) => q.name === "maintenance")?.isPaused).toBe(true);
    expect((await api.request("/admin/queues/api/queues/maintenance/resume", { method: "PUT", headers: bearer })).status).toBe(200);
    expect((await list()).find((q) => q.name === "maintenance")?.isPaused).toBe(false);
  });
});
