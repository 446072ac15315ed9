import type { Job } from "bullmq";
import { getAddress } from "viem";
import { depositBalance } from "../rails/evm/depositBalance.ts";
import { evmClient } from "../rails/evm/client.ts";
import { findPayment, type PaymentRow } from "../db/payments.ts";
import { movedOut, openTransferOut, recentlyReverted, reserveTransferOut } from "../db/transfersOut.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { executeTransferOut, type TransferOutDeps } from "../rails/evm/transfers/executeTransferOut.ts";

export type SweepJobData = { paymentId: string };

/** Sweeps of one payment that may revert on chain within `REVERTED_WINDOW_HOURS` before it waits. */
const MAX_REVERTED_SWEEPS = 3;
const REVERTED_WINDOW_HOURS = 24;

/**
 * What the merchant is owed from a payment's deposit address: the amount, once the
 * payment completed through transfers to that address (with the network's required
 * confirmations, which `completed` implies), less what was already swept. A contract
 * payment paid the merchant directly, so nothing is owed from the address.
 */
export function sweepOwed(payment: PaymentRow, swept: bigint): bigint {
  if (payment.status !== "completed" || payment.completedVia !== "transfer" || !payment.receiveAddress) return 0n;
  return payment.amount > swept ? payment.amount - swept : 0n;
}

/**
 * `sweep`: forwards what the merchant is owed to its settlement wallet. Resumes a sweep
 * or refund already in flight for the payment first (one at a time, by a unique index),
 * then records a new row before sending anything. Harmless when run twice.
 */
export const sweep = (deps: TransferOutDeps) => async (job: Job<SweepJobData>) => {
  const { paymentId } = job.data;
  const open = await openTransferOut(deps.db, paymentId);
  if (open) await executeTransferOut(deps, open.id);

  // The chain must hold what our records say is owed before anything is reserved: when it
  // does not (funds gone in a reorg deeper than the network's finality, or a sandbox whose
  // chains were recreated), reserving would only record a failed sweep on every recheck.
  const payment = await findPayment(deps.db, paymentId);
  if (!payment) return { swept: "0" };
  const owed = sweepOwed(payment, (await movedOut(deps.db, paymentId)).sweep);
  if (owed === 0n) return { swept: "0" };
  // A sweep the chain reverted will most likely revert again, and every try costs gas: after
  // a few, the payment is tried again only once a day (the operator is told in the log).
  const reverted = await recentlyReverted(deps.db, paymentId, "sweep", REVERTED_WINDOW_HOURS);
  if (reverted >= MAX_REVERTED_SWEEPS) {
    deps.logger.error({ payment: paymentId, reverted }, "sweeps of this payment keep reverting on chain; retrying after a day");
    return { swept: "0", waiting: `${reverted} sweeps reverted on chain in the last ${REVERTED_WINDOW_HOURS} hours` };
  }
  const network = deps.config.networks.find((n) => n.chainId === payment.chainId && n.type === "evm" && n.enabled);
  if (!network) throw new ServiceUnavailableError(`chain ${payment.chainId} is not available for sweeps`);
  const held = await depositBalance(evmClient(network, 20_000), payment);
  if (held < owed) {
    deps.logger.warn({ payment: paymentId, owed: owed.toString(), held: held.toString() }, "deposit address holds less than the sweep owed; not sweeping");
    return { swept: "0", waiting: `deposit address holds ${held}, less than the ${owed} owed` };
  }

  const row = await reserveTransferOut(deps.db, paymentId, (payment, moved) => {
    const owed = sweepOwed(payment, moved.sweep);
    if (owed === 0n) return null;
    return { kind: "sweep", chainId: payment.chainId, tokenAddress: payment.tokenAddress, toAddress: getAddress(payment.merchantWallet), amount: owed };
  });
  if (!row) return { swept: "0" };
  const done = await executeTransferOut(deps, row.id);
  return { swept: done.status === "confirmed" ? done.amount.toString() : "0", status: done.status, txHash: done.txHash };
};
