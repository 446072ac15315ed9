import { describe, expect, test } from "bun:test";
import { rememberVerified, takeVerified } from "../../../api/services/x402RecentVerifications.ts";
import type { X402Request } from "../../../api/services/x402Request.ts";
import type { AuthContext } from "../../../api/plugins/auth.ts";
import type { Config } from "../../../config/index.ts";

const config = {} as Config;
const auth = (merchantId: string, mode: "test" | "live" = "test") => ({ merchantId, mode }) as AuthContext;
const request = (nonce: string): X402Request =>
  ({
    x402Version: 2,
    paymentPayload: { x402Version: 2, payload: { authorization: { nonce } }, accepted: { scheme: "exact" } },
    paymentRequirements: { scheme: "exact", network: "eip155:1", payTo: "0x1", asset: "0x2" },
  }) as unknown as X402Request;

describe("x402 verifications a settle may take", () => {
  test("the settle after a verify of the same request takes it, once", () => {
    rememberVerified(config, auth("m1"), "agent-1", request("0xaa"), { ok: 1 });
    expect(takeVerified(config, auth("m1"), "agent-1", request("0xaa"))).toEqual({ ok: 1 });
    expect(takeVerified(config, auth("m1"), "agent-1", request("0xaa"))).toBeUndefined();
  });

  test("another merchant, mode, agent header, payload or configuration takes nothing", () => {
    rememberVerified(config, auth("m1"), "agent-1", request("0xbb"), { ok: 1 });
    expect(takeVerified(config, auth("m2"), "agent-1", request("0xbb"))).toBeUndefined();
    expect(takeVerified(config, auth("m1", "live"), "agent-1", request("0xbb"))).toBeUndefined();
    expect(takeVerified(config, auth("m1"), "agent-2", request("0xbb"))).toBeUndefined();
    expect(takeVerified(config, auth("m1"), undefined, request("0xbb"))).toBeUndefined();
    expect(takeVerified(config, auth("m1"), "agent-1", request("0xcc"))).toBeUndefined();
    expect(takeVerified({} as Config, auth("m1"), "agent-1", request("0xbb"))).toBeUndefined();
    expect(takeVerified(config, auth("m1"), "agent-1", request("0xbb"))).toEqual({ ok: 1 });
  });
});
