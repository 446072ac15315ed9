import { describe, expect, test } from "bun:test";
import { requestIdOf } from "../../api/plugins/requestContext.ts";
import { jobLogFields } from "../../jobs/jobLogContext.ts";
import { statusClass } from "../../metrics/httpMetrics.ts";
import { hasOperatorToken } from "../../metrics/operatorToken.ts";

const TOKEN = "s3cret-operator-token";
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("hasOperatorToken", () => {
  test.each([
    [`Bearer ${TOKEN}`, true],
    [`bearer ${TOKEN}`, true],
    [`  Bearer   ${TOKEN}  `, true],
    [basic("ops", TOKEN), true],
    [basic("", TOKEN), true],
    [basic("any:thing", TOKEN), false],
    [`Bearer ${TOKEN}x`, false],
    [`Bearer ${TOKEN.slice(0, -1)}`, false],
    [basic(TOKEN, "wrong"), false],
    [`Basic ${Buffer.from(TOKEN).toString("base64")}`, false],
    [TOKEN, false],
    ["Bearer", false],
    ["", false],
    [null, false],
    [undefined, false],
  ] as const)("%p → %p", (header, expected) => {
    expect(hasOperatorToken(header, TOKEN)).toBe(expected);
  });
});

describe("requestIdOf", () => {
  test("keeps a short printable id, else makes a uuid", () => {
    expect(requestIdOf("abc-123")).toBe("abc-123");
    expect(requestIdOf("trace:01HZX/2+3=4@x.y_z")).toBe("trace:01HZX/2+3=4@x.y_z");
    expect(requestIdOf("a".repeat(128))).toBe("a".repeat(128));
    for (const bad of [null, "", "a".repeat(129), "has space", "new\nline", "quote\"", "<script>"]) {
      expect(requestIdOf(bad)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});

test("statusClass", () => {
  expect([200, 201, 304, 400, 404, 500, 503, 99, 600].map(statusClass)).toEqual(["2xx", "2xx", "3xx", "4xx", "4xx", "5xx", "5xx", "unknown", "unknown"]);
});

test("jobLogFields: the job and the ids it points at", () => {
  expect(jobLogFields({ name: "reconcile", id: "1", data: { paymentIds: ["a", "b"] } })).toEqual({ job: "reconcile", jobId: "1", paymentIds: ["a", "b"] });
  expect(jobLogFields({ name: "sweep", id: "2", data: { paymentId: "p" } })).toEqual({ job: "sweep", jobId: "2", paymentId: "p" });
  expect(jobLogFields({ name: "deliver", id: "webhook-d", data: { deliveryId: "d" } })).toEqual({ job: "deliver", jobId: "webhook-d", deliveryId: "d" });
  expect(jobLogFields({ name: "recheck", id: "3", data: {} })).toEqual({ job: "recheck", jobId: "3" });
});
