import { afterAll, beforeAll, describe, expect, test } from "bun:test";

import { createTestApi, type TestApi } from "../../harness/testApi.ts";
import { buildConfig } from "../../plugins/config.ts";

// A checkout page on the merchant's site calls the public routes from the customer's browser.
const PUBLIC_READ = "/api/v1/payments/public/00000000-0000-4000-8000-000000000000";

const preflight = (api: TestApi, origin: string, path = PUBLIC_READ, requestHeaders = "x-public-key") =>
  api.request(path, {
    method: "OPTIONS",
    headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": requestHeaders },
  });

describe("any origin (the default)", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  test("a preflight from any site is answered with what a checkout page needs", async () => {
    const response = await preflight(api, "https://shop.example.com");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST");
    expect(response.headers.get("access-control-allow-headers")?.toLowerCase().split(", ")).toEqual(["content-type", "x-public-key", "idempotency-key", "x-agent-id", "x-request-id"]);
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(response.headers.get("access-control-max-age")).toBe("600");
  });

  test("the actual response carries the CORS headers too, errors included", async () => {
    const rates = await api.request("/api/v1/currency/rates", { headers: { Origin: "https://shop.example.com" } });
    expect(rates.headers.get("access-control-allow-origin")).toBe("*");
    expect(rates.headers.get("access-control-expose-headers")).toBe("Idempotent-Replayed, Deprecation, X-Request-Id");
    const missing = await api.request(PUBLIC_READ, { headers: { Origin: "https://shop.example.com" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("a configured list of origins", () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await createTestApi({ env: { CORS_ORIGINS: "https://shop.example.com, http://localhost:5173/" } });
  });
  afterAll(async () => {
    await api?.close();
  });

  test("a listed origin is echoed back", async () => {
    for (const origin of ["https://shop.example.com", "http://localhost:5173"]) {
      const response = await preflight(api, origin);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("vary")).toBe("Origin");
    }
  });

  test("any other origin, or the same host on another scheme, gets no allow-origin header", async () => {
    for (const origin of ["https://evil.example.com", "http://shop.example.com", "https://shop.example.com.evil.io"]) {
      const response = await preflight(api, origin);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
      const rates = await api.request("/api/v1/currency/rates", { headers: { Origin: origin } });
      expect(rates.headers.get("access-control-allow-origin")).toBeNull();
    }
  });
});

test("CORS_ORIGINS is parsed once into the config", () => {
  expect(buildConfig({ APP_ENV: "test" }).http.corsOrigins).toBe("*");
  expect(buildConfig({ APP_ENV: "test", CORS_ORIGINS: "https://a.example, https://b.example:8443/" }).http.corsOrigins).toEqual(["https://a.example", "https://b.example:8443"]);
  expect(buildConfig({ APP_ENV: "test", CORS_ORIGINS: "https://a.example,*" }).http.corsOrigins).toBe("*");
});
