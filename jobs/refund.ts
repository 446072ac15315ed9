import type { Job } from "bullmq";
import { executeTransferOut, type TransferOutDeps } from "../rails/evm/transfers/executeTransferOut.ts";

export type RefundJobData = { transferId: string };

/** `refund`: sends a requested refund row back to the customer's address, once. */
export const refund = (deps: TransferOutDeps) => async (job: Job<RefundJobData>) => {
  const row = await executeTransferOut(deps, job.data.transferId);
  return { status: row.status, txHash: row.txHash };
};
