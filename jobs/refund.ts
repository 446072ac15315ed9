import type { Job } from "bullmq";
import { enterLogContext } from "../config/logContext.ts";
import { findTransferOut } from "../db/transfersOut.ts";
import { railOfPayment, type RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";
import { refundWaits } from "./refundWaits.ts";

/**
 * `refund`: sends a requested refund row back to the customer's address, once, through its
 * chain's rail — once every credit of the payment is final and the amount still owed
 * (`refundWaits`; until then the 30 s recheck prompts it again).
 */
export const refund = (ctx: RailContext) => async (job: Job<JobPayloads["refund"]>) => {
  const row = await findTransferOut(ctx.db, job.data.transferId);
  if (!row) return { status: "missing" };
  enterLogContext({ paymentId: row.paymentId });
  const waiting = await refundWaits(ctx, row);
  if (waiting) return { status: (await findTransferOut(ctx.db, row.id))!.status, waiting };
  // Sweeps and refunds are a chain rail's transactions: the rail of the transfer's chain sends them.
  const done = await railOfPayment(ctx.config, { chainId: row.chainId }).rail.executeTransferOut(ctx, row.id);
  return { status: done.status, txHash: done.txHash };
};
