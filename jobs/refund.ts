import type { Job } from "bullmq";
import { enterLogContext } from "../config/logContext.ts";
import { findTransferOut } from "../db/transfersOut.ts";
import { railOfPayment, type RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/** `refund`: sends a requested refund row back to the customer's address, once, through its chain's rail. */
export const refund = (ctx: RailContext) => async (job: Job<JobPayloads["refund"]>) => {
  const row = await findTransferOut(ctx.db, job.data.transferId);
  if (!row) return { status: "missing" };
  enterLogContext({ paymentId: row.paymentId });
  // Sweeps and refunds are a chain rail's transactions: the rail of the transfer's chain sends them.
  const done = await railOfPayment(ctx.config, { chainId: row.chainId }).rail.executeTransferOut(ctx, row.id);
  return { status: done.status, txHash: done.txHash };
};
