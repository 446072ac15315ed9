import type { Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { agentSpentSince, findAgentPolicy, lockAgentPolicy, type AgentPolicyRow } from "../../db/agentPolicies.ts";
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

type AgentPayment = { merchantId: string; mode: Mode; agentId: string; amount: bigint; decimals: number; network: string; token: string; now: Date };

/**
 * Checks a payment an agent is creating against the agent's policy, inside the creating
 * transaction (the policy row stays locked until it commits, so concurrent payments of one
 * agent are counted one after another). No policy: the agent is not limited, unless the
 * merchant refuses unknown agents in this mode (`unknownAgents: deny`).
 */
export async function enforceAgentPolicy(tx: Db, payment: AgentPayment): Promise<void> {
  const policy = await lockAgentPolicy(tx, payment.merchantId, payment.mode, payment.agentId);
  const spentToday = policy?.dailyLimit == null ? 0n : await agentSpentSince(tx, payment.merchantId, payment.mode, payment.agentId, startOfUtcDay(payment.now));
  await judge(tx, payment, policy, spentToday);
}

/**
 * The same check as a read that locks nothing (x402's verify: what a settle would refuse, told
 * before the work is done; the settle enforces it again, locked). Its reads go at once.
 */
export async function previewAgentPolicy(db: Db, payment: AgentPayment): Promise<void> {
  const [policy, spentToday] = await Promise.all([
    findAgentPolicy(db, payment.merchantId, payment.mode, payment.agentId),
    agentSpentSince(db, payment.merchantId, payment.mode, payment.agentId, startOfUtcDay(payment.now)),
  ]);
  await judge(db, payment, policy, policy?.dailyLimit == null ? 0n : spentToday);
}

async function judge(db: Db, payment: AgentPayment, policy: AgentPolicyRow | undefined, spentToday: bigint): Promise<void> {
  if (!policy) {
    if ((await findUnknownAgents(db, payment.merchantId, payment.mode)) === "allow") return;
    throw new AgentPolicyError(
      "no_policy",
      `Agent policy rule no_policy: agent "${payment.agentId}" has no policy, and this account refuses agents without one (unknownAgents: deny).`,
    );
  }
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
