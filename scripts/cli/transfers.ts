import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { findTransferOut, unfinishedTransfersOut, type TransferOutRow } from "../../db/transfersOut.ts";
import { AppError } from "../../domain/errors.ts";
import { uuidPattern } from "../../domain/uuid.ts";
import { cancelTransfer, sweepNativeCoin } from "../../payouts/index.ts";
import { CommandFailedError, required, UsageError, type Flags } from "./flags.ts";

const age = (since: Date) => {
  const seconds = Math.max(0, Math.floor((Date.now() - since.getTime()) / 1000));
  return seconds < 120 ? `${seconds}s` : seconds < 7200 ? `${Math.floor(seconds / 60)}m` : `${Math.floor(seconds / 3600)}h`;
};

const showTransfer = (t: TransferOutRow) =>
  [
    t.id,
    t.kind,
    `chain ${t.chainId}`,
    t.status,
    `nonce ${t.nonce ?? "-"}`,
    // Out since its first broadcast (each fee bump touches updated_at), as the stuck metric counts it.
    `for ${age(t.status === "broadcast" && t.broadcastAt ? t.broadcastAt : t.updatedAt)}`,
    `payment ${t.paymentId}`,
    ...(t.txHash ? [`tx ${t.txHash}`] : []),
    ...(t.replacedTxHashes.length > 0 ? [`replaced ${t.replacedTxHashes.length}x`] : []),
    ...(t.error ? [`(${t.error})`] : []),
  ].join("  ");

/** The operator's commands on sweeps and refunds in flight (`transfers …`), each returning the text to print. */
export const transferCommands: Record<string, (ctx: { db: Db; config: Config; databaseUrl: string; logger: Logger }, flags: Flags) => Promise<string>> = {
  async "transfers list"({ db }) {
    const rows = await unfinishedTransfersOut(db);
    return rows.length === 0 ? "No sweeps or refunds in flight." : rows.map(showTransfer).join("\n");
  },

  async "transfers cancel"({ db, config, databaseUrl, logger }, flags) {
    const id = required(flags, "id");
    if (!uuidPattern.test(id)) throw new UsageError("--id must be a sweep or refund id (uuid; see `transfers list`)");
    try {
      const transfer = await findTransferOut(db, id);
      if (!transfer) throw new UsageError(`no sweep or refund with id ${id}`);
      const { row, cancelTxHash } = await cancelTransfer({ db, config, databaseUrl, logger }, transfer);
      const sent = cancelTxHash ? `Cancelling transaction ${cancelTxHash} (nonce ${row.nonce}).` : "Its nonce was already spent: nothing sent.";
      if (row.status === "confirmed") return `${sent}\nThe ${row.kind} was mined first: ${showTransfer(row)}`;
      if (row.status === "failed") {
        const next =
          row.kind === "sweep"
            ? "The sweep is owed again: the next recheck (within 30 s) sends it under a new nonce."
            : row.kind === "native_sweep"
              ? `The native coin is still at the deposit address: \`transfers sweep-native --payment ${row.paymentId}\` forwards it.`
              : "The refund is owed again: a new refund-request for the payment sends it.";
        return `${sent}\nCancelled, nothing moved: ${showTransfer(row)}\n${next}`;
      }
      return `${sent}\nNot mined yet: the ${row.kind} closes when one of them is (\`transfers list\` shows it).`;
    } catch (error) {
      // A refusal (unknown id, nothing to cancel) is the operator's to fix; a node or key that failed is not.
      if (error instanceof AppError) throw error.status < 500 ? new UsageError(error.message) : new CommandFailedError(error.message);
      throw error;
    }
  },

  async "transfers sweep-native"({ db, config, databaseUrl, logger }, flags) {
    const id = required(flags, "payment");
    if (!uuidPattern.test(id)) throw new UsageError("--payment must be a payment id (uuid)");
    try {
      const done = await sweepNativeCoin({ db, config, databaseUrl, logger }, id);
      if (!done) return "Nothing to forward: the payment is open, unknown, on a chain whose deposit addresses hold no native coin, or its address holds none in a final block.";
      if (done.waiting) return `Not now: ${done.waiting}.`;
      return done.status === "confirmed" ? `Forwarded ${done.native} wei to the merchant's wallet (tx ${done.txHash}).` : `Sent (tx ${done.txHash}), ${done.status}: \`transfers list\` shows it.`;
    } catch (error) {
      if (error instanceof AppError) throw error.status < 500 ? new UsageError(error.message) : new CommandFailedError(error.message);
      throw error;
    }
  },
};
