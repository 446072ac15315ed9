import { findPayment } from "../db/payments.ts";
import { movedOut } from "../db/transfersOut.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { isFinal } from "../domain/paymentStatus.ts";
import { sweepOwed } from "../domain/refundable.ts";
import { portsOf, type RailContext } from "../rails/index.ts";
import { executeTransfer } from "./driveTransfer.ts";
import { reserveTransferOut } from "./reserveTransfer.ts";
import { REVERT_LIMIT, revertLimitReached } from "./revertLimit.ts";

/** The `token_address` of a `native_sweep` row: the chain's own coin, in wei. */
export const NATIVE_COIN = "native";

export type NativeSweepOutcome = { native: string; status?: string; txHash?: string | null; waiting?: string };

/**
 * Native coin (ETH…) at a payment's deposit address — sent there instead of the token, or
 * besides it — is never a credit and never completes a payment. Once the payment has ended
 * (completed and its token swept, or expired, failed, cancelled), what the address holds of
 * it in the chain's final block is forwarded to the merchant's wallet: the service cannot
 * tell who sent it (a plain value transfer leaves no log), so it cannot be "returned to the
 * payer"; the merchant, who got it, can. Recorded as a `native_sweep` row first and sent
 * through the chain's transfer machinery, exactly once, like a token sweep. Null when there
 * is nothing to do (the chain cannot move native coin, the payment is open, none is there).
 */
export async function sweepNativeCoin(deps: RailContext, paymentId: string): Promise<NativeSweepOutcome | null> {
  const payment = await findPayment(deps.db, paymentId);
  if (!payment || !isFinal(payment.status)) return null;
  const { network, chain, method } = portsOf(deps.config, payment);
  if (!chain.nativeBalance || !method.holdsFunds?.(payment)) return null;
  // The token first: one transfer of a payment is out at a time.
  if (sweepOwed(payment, (await movedOut(deps.db, paymentId)).sweep) > 0n) return null;
  const held = await chain.nativeBalance(network, payment, 20_000);
  if (held === 0n) return null;
  const reverted = await revertLimitReached(deps.db, paymentId, "native_sweep");
  if (reverted !== null) {
    deps.logger.error({ payment: paymentId, reverted }, "native-coin sweeps of this deposit address keep reverting on chain; retrying after a day");
    return { native: "0", waiting: `${reverted} native-coin sweeps reverted on chain in the last ${REVERT_LIMIT.withinHours} hours` };
  }
  const row = await reserveTransferOut(deps.db, paymentId, (p) => ({ kind: "native_sweep", chainId: p.chainId, tokenAddress: NATIVE_COIN, toAddress: p.merchantWallet, amount: held }));
  // Another transfer of the payment is out (a refund): the job's retry looks again after it.
  if (!row) throw new ServiceUnavailableError(`another transfer of payment ${paymentId} is out; its native coin is forwarded after it`);
  deps.logger.info({ payment: paymentId, wei: held.toString() }, "native coin at a deposit address: forwarding it to the merchant");
  const done = await executeTransfer(deps, row);
  return { native: done.status === "confirmed" ? done.amount.toString() : "0", status: done.status, txHash: done.txHash };
}
