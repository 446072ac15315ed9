import { findPayment } from "../db/payments.ts";
import { movedOut, openTransferOut } from "../db/transfersOut.ts";
import { nextSweep, sweepOwed } from "../domain/refundable.ts";
import { portsOf, type RailContext } from "../rails/index.ts";
import { executeTransfer } from "./driveTransfer.ts";
import { sweepNativeCoin, type NativeSweepOutcome } from "./nativeSweep.ts";
import { refundWaits } from "./refundWaits.ts";
import { reserveTransferOut } from "./reserveTransfer.ts";
import { REVERT_LIMIT, revertLimitReached } from "./revertLimit.ts";

export type TokenSweep = { swept: string; waiting?: string; status?: string; txHash?: string | null };
export type SweepOutcome = TokenSweep & Partial<NativeSweepOutcome>;

/**
 * Forwards what the merchant is owed from a payment's deposit address to its settlement
 * wallet. Resumes a sweep or refund already in flight for the payment first (one at a time,
 * by a unique index), then records a new row before sending anything; once the token is
 * done and the payment has ended, any native coin at its deposit address (`sweepNativeCoin`).
 * Harmless when run twice, or after a crash at any point.
 */
export async function sweepPayment(deps: RailContext, paymentId: string): Promise<SweepOutcome> {
  const token = await sweepToken(deps, paymentId);
  if (token.waiting || (token.status !== undefined && token.status !== "confirmed")) return token;
  const native = await sweepNativeCoin(deps, paymentId);
  return native ? { ...token, ...native } : token;
}

async function sweepToken(deps: RailContext, paymentId: string): Promise<TokenSweep> {
  const open = await openTransferOut(deps.db, paymentId);
  if (open) {
    // A refund not yet signed goes out only when it may (`refundWaits`); meanwhile nothing else is sent.
    const waiting = await refundWaits(deps, open);
    if (waiting && (await openTransferOut(deps.db, paymentId))) return { swept: "0", waiting: `refund ${open.id}: ${waiting}` };
    if (!waiting) await executeTransfer(deps, open);
  }

  // The chain must hold what our records say is owed before anything is reserved: when it
  // does not (funds gone in a reorg deeper than the network's finality, or a sandbox whose
  // chains were recreated), reserving would only record a failed sweep on every recheck.
  const payment = await findPayment(deps.db, paymentId);
  if (!payment) return { swept: "0" };
  const owed = sweepOwed(payment, (await movedOut(deps.db, paymentId)).sweep);
  if (owed === 0n) return { swept: "0" };
  // A sweep the chain reverted will most likely revert again, and every try costs gas: after
  // a few, the payment is tried again only once a day (the operator is told in the log).
  const reverted = await revertLimitReached(deps.db, paymentId, "sweep");
  if (reverted !== null) {
    deps.logger.error({ payment: paymentId, reverted }, "sweeps of this payment keep reverting on chain; retrying after a day");
    return { swept: "0", waiting: `${reverted} sweeps reverted on chain in the last ${REVERT_LIMIT.withinHours} hours` };
  }
  const { network, chain } = portsOf(deps.config, payment);
  // Only money the chain can no longer take back is forwarded: a reorg deeper than the
  // confirmations seen could otherwise undo the customer's transfer after the sweep. The
  // recheck prompts the sweep again until the block is final.
  const finalized = await chain.finalEvidenceHead(deps, network, 20_000);
  if (payment.completingBlock === null || payment.completingBlock > finalized) {
    return { swept: "0", waiting: `block ${payment.completingBlock} is not final yet (final: ${finalized})` };
  }
  const held = await chain.balanceOf(network, payment, 20_000);
  if (held < owed) {
    deps.logger.warn({ payment: paymentId, owed: owed.toString(), held: held.toString() }, "deposit address holds less than the sweep owed; not sweeping");
    return { swept: "0", waiting: `deposit address holds ${held}, less than the ${owed} owed` };
  }

  // The merchant's share, then (a contract payment paid by transfer) the service fee: one row at a time.
  let swept = 0n;
  let last: { status: string; txHash: string | null } | null = null;
  for (;;) {
    const row = await reserveTransferOut(deps.db, paymentId, (payment, moved) => {
      const next = nextSweep(payment, moved.sweep);
      return next && { kind: "sweep", chainId: payment.chainId, tokenAddress: payment.tokenAddress, toAddress: next.to, amount: next.amount };
    });
    if (!row) break;
    const done = await executeTransfer(deps, row);
    last = { status: done.status, txHash: done.txHash };
    if (done.status !== "confirmed") break;
    swept += done.amount;
  }
  return last ? { swept: swept.toString(), status: last.status, txHash: last.txHash } : { swept: "0" };
}
