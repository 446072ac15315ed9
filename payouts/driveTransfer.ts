import type { TransferOutRow } from "../db/transfersOut.ts";
import { chainOf, type CancelledTransferOut, type RailContext } from "../rails/index.ts";
import { transferLedger } from "./transferLedger.ts";

/**
 * Sweeps and refunds are a chain's transactions: the chain port of the transfer's network signs,
 * sends and watches them, and reports each transition to the transfer-out state machine
 * (`transferLedger`), which records it with its events. Every money-out call to a chain goes
 * through here.
 */
const chainOfRow = (ctx: RailContext, row: Pick<TransferOutRow, "chainId">) => ({
  port: chainOf(ctx.config, row.chainId).chain,
  ctx: { ...ctx, ledger: transferLedger },
});

/** Drives a recorded sweep or refund to a final state, exactly once on chain; safe to call again at any point. */
export function executeTransfer(ctx: RailContext, row: Pick<TransferOutRow, "id" | "chainId">): Promise<TransferOutRow> {
  const chain = chainOfRow(ctx, row);
  return chain.port.executeTransferOut(chain.ctx, row.id);
}

/** Looks at a confirmed sweep or refund again while its block is not final (a reorg may have removed it). */
export function recheckTransfer(ctx: RailContext, row: Pick<TransferOutRow, "id" | "chainId">): Promise<TransferOutRow> {
  const chain = chainOfRow(ctx, row);
  return chain.port.recheckTransferOut(chain.ctx, row.id);
}

/** Ends a stuck sweep or refund without moving anything (the operator's way out). */
export function cancelTransfer(ctx: RailContext, row: Pick<TransferOutRow, "id" | "chainId">, options?: { waitMs?: number }): Promise<CancelledTransferOut> {
  const chain = chainOfRow(ctx, row);
  return chain.port.cancelTransferOut(chain.ctx, row.id, options);
}
