import { formatScaled } from "./decimal.ts";

/** USD amounts in agent policies and statistics are integers of 10^-18 dollars. */
export const USD_SCALE = 18;

/** A USD stablecoin amount (smallest units) in 10^-18 dollars, rounded up past 18 decimals. */
export function tokenUnitsToUsd(units: bigint, decimals: number): bigint {
  if (decimals <= USD_SCALE) return units * 10n ** BigInt(USD_SCALE - decimals);
  const divisor = 10n ** BigInt(decimals - USD_SCALE);
  return (units + divisor - 1n) / divisor;
}

export const formatUsd = (usd: bigint) => formatScaled(usd, USD_SCALE);

/** What an agent may create. Limits in 10^-18 USD; null = no limit / any network / any token. */
export type AgentPolicyRules = {
  maxPerPayment: bigint | null;
  dailyLimit: bigint | null;
  allowedNetworks: readonly string[] | null;
  allowedTokens: readonly string[] | null;
  expiresAt: Date | null;
  active: boolean;
};

export type AgentPaymentAttempt = {
  /** The payment's amount in 10^-18 USD. */
  amountUsd: bigint;
  /** Network shortName. */
  network: string;
  /** Token symbol. */
  token: string;
};

export type AgentPolicyRule = "inactive" | "expired" | "network_not_allowed" | "token_not_allowed" | "max_per_payment" | "daily_limit";
export type AgentPolicyViolation = { rule: AgentPolicyRule; message: string };

/**
 * The first rule of the agent's policy this payment breaks, or null. `spentToday` is the
 * sum (10^-18 USD) of the agent's payments created since 00:00 UTC that are not failed,
 * cancelled or expired; the new payment must fit in the daily limit together with them.
 */
export function checkAgentPolicy(agentId: string, policy: AgentPolicyRules, attempt: AgentPaymentAttempt, spentToday: bigint, now: Date): AgentPolicyViolation | null {
  const who = `agent "${agentId}"`;
  if (!policy.active) return { rule: "inactive", message: `The policy of ${who} is inactive: it may not create payments.` };
  if (policy.expiresAt && policy.expiresAt.getTime() <= now.getTime()) {
    return { rule: "expired", message: `The policy of ${who} expired at ${policy.expiresAt.toISOString()}.` };
  }
  if (policy.allowedNetworks && !policy.allowedNetworks.includes(attempt.network)) {
    return { rule: "network_not_allowed", message: `Network ${attempt.network} is not allowed for ${who} (allowed: ${policy.allowedNetworks.join(", ") || "none"}).` };
  }
  if (policy.allowedTokens && !policy.allowedTokens.includes(attempt.token)) {
    return { rule: "token_not_allowed", message: `Token ${attempt.token} is not allowed for ${who} (allowed: ${policy.allowedTokens.join(", ") || "none"}).` };
  }
  if (policy.maxPerPayment !== null && attempt.amountUsd > policy.maxPerPayment) {
    return {
      rule: "max_per_payment",
      message: `${formatUsd(attempt.amountUsd)} USD is over the maximum per payment of ${formatUsd(policy.maxPerPayment)} USD for ${who}.`,
    };
  }
  if (policy.dailyLimit !== null && spentToday + attempt.amountUsd > policy.dailyLimit) {
    return {
      rule: "daily_limit",
      message: `${formatUsd(attempt.amountUsd)} USD would take ${who} over its daily limit of ${formatUsd(policy.dailyLimit)} USD (${formatUsd(spentToday)} USD already created today, UTC).`,
    };
  }
  return null;
}
