import type { Job } from "bullmq";
import { getAddress } from "viem";
import type { PaymentRow } from "../db/payments.ts";
import { openTransferOut, reserveTransferOut } from "../db/transfersOut.ts";
import { executeTransferOut, type TransferOutDeps } from "./executeTransferOut.ts";

export type SweepJobData = { paymentId: string };

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

  const row = await reserveTransferOut(deps.db, paymentId, (payment, moved) => {
    const owed = sweepOwed(payment, moved.sweep);
    if (owed === 0n) return null;
    return { kind: "sweep", chainId: payment.chainId, tokenAddress: payment.tokenAddress, toAddress: getAddress(payment.merchantWallet), amount: owed };
  });
  if (!row) return { swept: "0" };
  const done = await executeTransferOut(deps, row.id);
  return { swept: done.status === "confirmed" ? done.amount.toString() : "0", status: done.status, txHash: done.txHash };
};
