import type { Job } from "bullmq";
import { enterLogContext } from "../config/logContext.ts";
import { findTransferOut } from "../db/transfersOut.ts";
import { sendRequestedRefund } from "../payouts/index.ts";
import type { RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/** `refund`: sends a requested refund row once it may go (`sendRequestedRefund`). Harmless when run twice. */
export const refund = (ctx: RailContext) => async (job: Job<JobPayloads["refund"]>) => {
  const row = await findTransferOut(ctx.db, job.data.transferId);
  if (!row) return { status: "missing" };
  enterLogContext({ paymentId: row.paymentId });
  return sendRequestedRefund(ctx, row);
};
