import type { LocalRequestState } from "../books.ts";

export type DepositJudgement = {
  disposition: "fill" | "refund";
  /** Why, in words the status read passes on (`details`). */
  reason: string;
  /** The request's state after this deposit. */
  state: LocalRequestState;
};

/**
 * What the local relayer does with a deposit, strict like Relay's deposit addresses: the
 * first deposit decides the request. One made in time (its block stamped at or before the
 * expiry, to the second) of at least `amountToSend` fills it (any excess goes back); one
 * short of it, late, or made after the quoting party asked for refunds is returned whole,
 * and so is every deposit after the first. Pure: deposits are judged in chain order.
 */
export function judgeDeposit(
  request: { state: LocalRequestState; amountToSend: bigint; expiresAt: Date; refundRequested: boolean },
  deposit: { amount: bigint; blockTimestamp: Date },
): DepositJudgement {
  const refund = (reason: string, state: LocalRequestState): DepositJudgement => ({ disposition: "refund", reason, state });
  if (request.state !== "open") return refund(`the request is already ${request.state}`, request.state);
  if (request.refundRequested) return refund("a refund was requested", "refunding");
  if (deposit.blockTimestamp.getTime() > request.expiresAt.getTime()) {
    return refund(`late: deposited at ${deposit.blockTimestamp.toISOString()}, after the expiry at ${request.expiresAt.toISOString()}`, "refunding");
  }
  if (deposit.amount < request.amountToSend) return refund(`underpaid: ${deposit.amount} sent, ${request.amountToSend} required`, "refunding");
  return { disposition: "fill", reason: deposit.amount > request.amountToSend ? `overpaid by ${deposit.amount - request.amountToSend}` : "paid", state: "filling" };
}
