import { describe, expect, test } from "bun:test";
import { checkAgentPolicy, formatUsd, tokenUnitsToUsd, type AgentPolicyRule, type AgentPolicyRules } from "../../domain/agentPolicy.ts";

const USD = (whole: number | bigint) => BigInt(whole) * 10n ** 18n;
const NOW = new Date("2025-06-01T12:00:00Z");
const rules = (over: Partial<AgentPolicyRules> = {}): AgentPolicyRules => ({
  maxPerPayment: null,
  dailyLimit: null,
  allowedNetworks: null,
  allowedTokens: null,
  expiresAt: null,
  active: true,
  ...over,
});
const attempt = (amountUsd: bigint, network = "base", token = "USDC") => ({ amountUsd, network, token });

describe("tokenUnitsToUsd", () => {
  test("6 and 18 decimals scale exactly to 10^-18 USD", () => {
    expect(tokenUnitsToUsd(25_500_000n, 6)).toBe(USD(25) + 5n * 10n ** 17n);
    expect(tokenUnitsToUsd(1n, 6)).toBe(10n ** 12n);
    expect(tokenUnitsToUsd(10n ** 18n + 1n, 18)).toBe(10n ** 18n + 1n);
    expect(tokenUnitsToUsd(1n, 20)).toBe(1n); // past 18 decimals rounds up, never down to zero
    expect(formatUsd(USD(25) + 5n * 10n ** 17n)).toBe("25.5");
  });
});

describe("checkAgentPolicy", () => {
  const rows: Array<[string, AgentPolicyRules, ReturnType<typeof attempt>, bigint, AgentPolicyRule | null]> = [
    ["no limits: allowed", rules(), attempt(USD(1_000_000)), USD(5_000_000), null],
    ["inactive", rules({ active: false }), attempt(USD(1)), 0n, "inactive"],
    ["expired at exactly now", rules({ expiresAt: NOW }), attempt(USD(1)), 0n, "expired"],
    ["expires later: allowed", rules({ expiresAt: new Date(NOW.getTime() + 1) }), attempt(USD(1)), 0n, null],
    ["network not in the list", rules({ allowedNetworks: ["polygon"] }), attempt(USD(1), "base"), 0n, "network_not_allowed"],
    ["empty network list allows none", rules({ allowedNetworks: [] }), attempt(USD(1)), 0n, "network_not_allowed"],
    ["network in the list", rules({ allowedNetworks: ["polygon", "base"] }), attempt(USD(1), "base"), 0n, null],
    ["token not in the list", rules({ allowedTokens: ["USDT"] }), attempt(USD(1), "base", "USDC"), 0n, "token_not_allowed"],
    ["token in the list", rules({ allowedTokens: ["USDT", "USDC"] }), attempt(USD(1)), 0n, null],
    ["exactly the max per payment", rules({ maxPerPayment: USD(100) }), attempt(USD(100)), 0n, null],
    ["one unit over the max per payment", rules({ maxPerPayment: USD(100) }), attempt(USD(100) + 1n), 0n, "max_per_payment"],
    ["daily limit reached exactly", rules({ dailyLimit: USD(100) }), attempt(USD(40)), USD(60), null],
    ["daily limit passed by one unit", rules({ dailyLimit: USD(100) }), attempt(USD(40) + 1n), USD(60), "daily_limit"],
    ["inactive is reported before anything else", rules({ active: false, expiresAt: NOW, maxPerPayment: 0n }), attempt(USD(1), "x", "Y"), 0n, "inactive"],
    ["expired before network", rules({ expiresAt: NOW, allowedNetworks: [] }), attempt(USD(1)), 0n, "expired"],
    ["max per payment before daily limit", rules({ maxPerPayment: USD(1), dailyLimit: USD(1) }), attempt(USD(2)), 0n, "max_per_payment"],
  ];
  for (const [name, policy, payment, spent, rule] of rows) {
    test(name, () => {
      const violation = checkAgentPolicy("agent-7", policy, payment, spent, NOW);
      expect(violation?.rule ?? null).toBe(rule);
      if (violation) expect(violation.message).toContain('agent "agent-7"');
    });
  }

  test("messages carry the amounts in USD", () => {
    expect(checkAgentPolicy("a", rules({ maxPerPayment: USD(100) }), attempt(USD(150)), 0n, NOW)!.message).toBe(
      '150 USD is over the maximum per payment of 100 USD for agent "a".',
    );
    expect(checkAgentPolicy("a", rules({ dailyLimit: USD(100) }), attempt(USD(50)), USD(60), NOW)!.message).toBe(
      '50 USD would take agent "a" over its daily limit of 100 USD (60 USD already created today, UTC).',
    );
  });
});
