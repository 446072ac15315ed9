import { findTransferOut, type TransferOutRow } from "../db/transfersOut.ts";
import type { RailContext } from "../rails/index.ts";
import { executeTransfer } from "./driveTransfer.ts";
import { refundWaits } from "./refundWaits.ts";

export type RefundSent = { status: string; txHash?: string | null; waiting?: string };

/**
 * Sends a requested refund row back to the customer's address, once, through its chain's
 * rail — once every credit of the payment is final and the amount still owed
 * (`refundWaits`; until then the 30 s recheck prompts it again). Harmless when run twice.
 */
export async function sendRequestedRefund(ctx: RailContext, row: TransferOutRow): Promise<RefundSent> {
  const waiting = await refundWaits(ctx, row);
  if (waiting) return { status: (await findTransferOut(ctx.db, row.id))!.status, waiting };
  const done = await executeTransfer(ctx, row);
  return { status: done.status, txHash: done.txHash };
}
