import type { Db } from "../db/client.ts";
import type { RailContext } from "./types.ts";

/**
 * The transfer-out state machine, as a chain's money-out steps report to it: a row closes
 * `confirmed` or `failed`, or a confirmed one a reorg removed reopens, each transition once and
 * with what the merchant is told of it (its events) in the same transaction. `payouts/`
 * implements it and passes it in: a rail signs, sends and watches transactions; it decides
 * nothing of what is owed or told.
 */
export type TransferLedger = {
  /** The row's transaction (or one it replaced) was mined and succeeded: `confirmed`, once. */
  confirm(db: Db, id: string, mined: { blockNumber: bigint; txHash: string }): Promise<void>;
  /**
   * The row ends `failed`, only from `from` (and, with `guard.txHash`, only while that is still
   * its transaction): nothing moved, or a reorg undid what did.
   */
  fail(
    db: Db,
    id: string,
    from: "requested" | "broadcast" | "confirmed",
    values: { error: string; blockNumber?: bigint },
    guard?: { txHash?: string },
  ): Promise<void>;
  /** A confirmed row whose transaction a reorg removed: back to `broadcast`, or `blocked` (left confirmed) while another transfer of its payment is open. */
  reopen(db: Db, id: string, reason: string): Promise<"reopened" | "blocked" | null>;
};

/** What a chain's money-out steps are given: the rail's context and the ledger they report to. */
export type TransferContext = RailContext & { ledger: TransferLedger };
