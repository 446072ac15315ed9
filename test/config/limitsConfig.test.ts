import { buildConfig } from "../../plugins/config.ts";
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/index.ts";

const configError = (env: Record<string, string>): string => {
  try {
    buildConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("expected a ConfigError");
};

describe("rate limits, caps and the public key's settings (issue 41)", () => {
  test("the defaults", () => {
    const config = buildConfig({});
    expect(config.rateLimits).toEqual({
      enabled: true,
      windowSeconds: 60,
      publicKey: { creates: 60, reads: 3_000 },
      apiKey: { creates: 600, reads: 12_000 },
      ip: { creates: 60, reads: 1_200 },
      clientIpHeader: null,
    });
    expect(config.payments).toMatchObject({ publicKeyMaxExpiresIn: 86_400, maxOpen: 10_000, maxOpenPublicKey: 2_000, bodyWindowSeconds: 60 });
    expect(config.auth).toEqual({ publicKeyAccountReads: true });
  });

  test("each read from its variable", () => {
    const config = buildConfig({
      RATE_LIMITS: "off",
      RATE_LIMIT_WINDOW_SECONDS: "10",
      RATE_LIMIT_PUBLIC_KEY_CREATES: "1",
      RATE_LIMIT_PUBLIC_KEY_READS: "2",
      RATE_LIMIT_API_KEY_CREATES: "3",
      RATE_LIMIT_API_KEY_READS: "4",
      RATE_LIMIT_IP_CREATES: "5",
      RATE_LIMIT_IP_READS: "6",
      RATE_LIMIT_CLIENT_IP_HEADER: "X-Forwarded-For",
      PUBLIC_KEY_MAX_EXPIRES_IN: "3600",
      MAX_OPEN_PAYMENTS: "50",
      MAX_OPEN_PAYMENTS_PUBLIC_KEY: "50",
      IDEMPOTENCY_BODY_WINDOW_SECONDS: "5",
      PUBLIC_KEY_ACCOUNT_READS: "off",
    });
    expect(config.rateLimits).toEqual({
      enabled: false,
      windowSeconds: 10,
      publicKey: { creates: 1, reads: 2 },
      apiKey: { creates: 3, reads: 4 },
      ip: { creates: 5, reads: 6 },
      clientIpHeader: "x-forwarded-for",
    });
    expect(config.payments).toMatchObject({ publicKeyMaxExpiresIn: 3_600, maxOpen: 50, maxOpenPublicKey: 50, bodyWindowSeconds: 5 });
    expect(config.auth.publicKeyAccountReads).toBe(false);
  });

  test("the public key's maximum lifetime never exceeds PAYMENT_MAX_EXPIRES_IN", () => {
    expect(buildConfig({ PAYMENT_MAX_EXPIRES_IN: "7200" }).payments.publicKeyMaxExpiresIn).toBe(7_200);
  });

  test.each([
    [{ RATE_LIMITS: "yes" }, "RATE_LIMITS"],
    [{ RATE_LIMIT_PUBLIC_KEY_CREATES: "0" }, "RATE_LIMIT_PUBLIC_KEY_CREATES"],
    [{ RATE_LIMIT_IP_READS: "1.5" }, "RATE_LIMIT_IP_READS"],
    [{ RATE_LIMIT_WINDOW_SECONDS: "0" }, "RATE_LIMIT_WINDOW_SECONDS"],
    [{ RATE_LIMIT_CLIENT_IP_HEADER: "x forwarded" }, "RATE_LIMIT_CLIENT_IP_HEADER"],
    [{ PUBLIC_KEY_MAX_EXPIRES_IN: "600" }, "PUBLIC_KEY_MAX_EXPIRES_IN"],
    [{ PAYMENT_EXPIRES_IN: "7200", PUBLIC_KEY_MAX_EXPIRES_IN: "3600" }, "PAYMENT_EXPIRES_IN: must not exceed PUBLIC_KEY_MAX_EXPIRES_IN"],
    [{ MAX_OPEN_PAYMENTS: "10", MAX_OPEN_PAYMENTS_PUBLIC_KEY: "11" }, "MAX_OPEN_PAYMENTS_PUBLIC_KEY: must not exceed MAX_OPEN_PAYMENTS"],
    [{ IDEMPOTENCY_BODY_WINDOW_SECONDS: "0" }, "IDEMPOTENCY_BODY_WINDOW_SECONDS"],
    [{ PUBLIC_KEY_ACCOUNT_READS: "false" }, "PUBLIC_KEY_ACCOUNT_READS"],
  ] as const)("%o is refused at start, naming the variable", (env, named) => {
    expect(configError(env)).toContain(named);
  });
});
