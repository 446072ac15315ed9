import type { Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { agentSpentSince, lockAgentPolicy } from "../../db/agentPolicies.ts";
import { findUnknownAgents } from "../../db/agentSettings.ts";
import { checkAgentPolicy, tokenUnitsToUsd, USD_SCALE } from "../../domain/agentPolicy.ts";
import { parseDecimal, toScale } from "../../domain/decimal.ts";
import { startOfUtcDay } from "../../domain/dateRange.ts";
import { AgentPolicyError } from "../../domain/errors.ts";

/** A stored limit at USD_SCALE; one stored finer (before PUT refused that) is rounded down: stricter, never a 500. */
function usd(text: string | null): bigint | null {
  if (text === null) return null;
  const value = parseDecimal(text, Number.MAX_SAFE_INTEGER)!;
  return value.scale > USD_SCALE ? value.units / 10n ** BigInt(value.scale - USD_SCALE) : toScale(value, USD_SCALE);
}

/**
 * Checks a payment an agent is creating against the agent's policy, inside the creating
 * transaction (the policy row stays locked until it commits, so concurrent payments of one
 * agent are counted one after another). No policy: the agent is not limited, unless the
 * merchant refuses unknown agents in this mode (`unknownAgents: deny`).
 */
export async function enforceAgentPolicy(
  tx: Db,
  payment: { merchantId: string; mode: Mode; agentId: string; amount: bigint; decimals: number; network: string; token: string; now: Date },
): Promise<void> {
  const policy = await lockAgentPolicy(tx, payment.merchantId, payment.mode, payment.agentId);
  if (!policy) {
    if ((await findUnknownAgents(tx, payment.merchantId, payment.mode)) === "allow") return;
    throw new AgentPolicyError(
      "no_policy",
      `Agent policy rule no_policy: agent "${payment.agentId}" has no policy, and this account refuses agents without one (unknownAgents: deny).`,
    );
  }
  const spentToday = policy.dailyLimit === null ? 0n : await agentSpentSince(tx, payment.merchantId, payment.mode, payment.agentId, startOfUtcDay(payment.now));
  const violation = checkAgentPolicy(
    payment.agentId,
    {
      maxPerPayment: usd(policy.maxPerPayment),
      dailyLimit: usd(policy.dailyLimit),
      allowedNetworks: policy.allowedNetworks,
      allowedTokens: policy.allowedTokens,
      expiresAt: policy.expiresAt,
      active: policy.active,
    },
    { amountUsd: tokenUnitsToUsd(payment.amount, payment.decimals), network: payment.network, token: payment.token },
    spentToday,
    payment.now,
  );
  if (violation) throw new AgentPolicyError(violation.rule, `Agent policy rule ${violation.rule}: ${violation.message}`);
}
