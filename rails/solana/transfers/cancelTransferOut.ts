import { findTransferOut } from "../../../db/transfersOut.ts";
import { ConflictError, NotFoundError, ServiceUnavailableError } from "../../../domain/errors.ts";
import type { TransferContext } from "../../transferLedger.ts";
import type { CancelledTransferOut } from "../../types.ts";
import { solanaConnection } from "../connection.ts";
import { executeTransferOut } from "./executeTransferOut.ts";
import { signatureStatuses } from "./signatureStatuses.ts";
import { unlandedProof } from "./unlandedProof.ts";
import { findPayment } from "../../../db/payments.ts";

/**
 * A Solana transaction cancels itself: once the finalized block height passes its last
 * valid height it can never land. So a sweep or refund is closed as `failed` (nothing
 * moved) only when that is proven, none of its signatures landed — in the word of a node
 * that has reached that finalized slot (behind a load balancer the statuses may come from
 * one lagging the node that gave the height) — and the deposit account still holds what it
 * held at signing (`unlandedProof`: a node may drop the status of one that landed). One
 * that landed is closed through the usual path; one still valid, or not provably
 * unlanded, is refused (409).
 */
export async function cancelTransferOut(ctx: TransferContext, rowId: string): Promise<CancelledTransferOut> {
  const row = await findTransferOut(ctx.db, rowId);
  if (!row) throw new NotFoundError(`no sweep or refund with id ${rowId}`);
  if (row.status !== "broadcast" || !row.txHash) {
    throw new ConflictError(row.status === "requested" ? `transfer ${row.id} is not signed yet: nothing waits behind it` : `transfer ${row.id} is already ${row.status}`);
  }
  const network = ctx.config.networks.find((n) => n.chainId === row.chainId && n.type === "solana" && n.enabled);
  if (!network) throw new ServiceUnavailableError(`chain ${row.chainId} is not available`);
  const connection = solanaConnection(network, "confirmed", 20_000);
  const final = await connection.getEpochInfo("finalized");
  const height = BigInt(final.blockHeight ?? 0);
  const signatures = [row.txHash, ...row.replacedTxHashes];
  const { context, value } = await signatureStatuses(connection, signatures);
  if (value.some((s) => s !== null)) return { row: await executeTransferOut(ctx, row.id), cancelTxHash: null };
  if (row.lastValidBlockHeight === null || final.blockHeight === undefined || height <= row.lastValidBlockHeight) {
    throw new ConflictError(`transfer ${row.id} can still land until block height ${row.lastValidBlockHeight} (finalized height now ${height}); it cancels itself after that`);
  }
  if (context.slot < final.absoluteSlot) {
    throw new ServiceUnavailableError(`the node that answered for transfer ${row.id}'s signatures is behind the finalized slot ${final.absoluteSlot} (at ${context.slot}): it may not know it landed; try again`);
  }
  // The deposit account must also hold what it held at signing: a node may drop the status of
  // one that landed, and a refund closed `failed` is owed — and sent — again. (A row signed
  // before balances were recorded is closed on the statuses alone, the operator's call.)
  if (row.sourceBalance !== null) {
    // A follow-up that signed it again meanwhile moved the balance itself: that is the refusal to give.
    const now = await findTransferOut(ctx.db, row.id);
    if (now?.txHash !== row.txHash) throw new ConflictError(signedAgain(row.id));
    const payment = (await findPayment(ctx.db, row.paymentId))!;
    const mayHaveLanded = await unlandedProof(connection, network, payment, row, final.absoluteSlot);
    if (mayHaveLanded) throw new ConflictError(`${mayHaveLanded}; not cancelled (wait for a node to report its signatures)`);
  }
  // Only while the row still holds the transaction judged here: a follow-up that signed it
  // again meanwhile sent one that may land.
  await ctx.ledger.fail(ctx.db, row.id, "broadcast", { error: "cancelled by the operator: expired without landing" }, { txHash: row.txHash });
  const after = (await findTransferOut(ctx.db, row.id))!;
  if (after.status !== "failed") throw new ConflictError(signedAgain(row.id));
  return { row: after, cancelTxHash: null };
}

const signedAgain = (id: string) => `transfer ${id} was signed again while it was being cancelled; try again once its new transaction has expired`;
