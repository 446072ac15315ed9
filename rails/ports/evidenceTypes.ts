import type { EvidenceCursor } from "../../db/dispatchCursors.ts";
import type { SourcedCredit } from "./context.ts";

/**
 * Per chain, the block (slot) up to which ingest holds every piece of evidence. `rereading`:
 * chains whose ingest restarted and is reading again blocks it had read — evidence above
 * the head is absent for now, not gone, so answers computed from it stand until it is done.
 */
export type IndexedHeads = Map<string, bigint> & { rereading?: ReadonlySet<string> };

/**
 * Credits by payment. `unreadable`: payments whose evidence could not be read now (a chain's
 * node failing on a read the source makes per payment): their stored answer stands, and the
 * other payments of the batch are reconciled all the same. `evidenceThrough`: per payment,
 * a time through which evidence the source reads from outside the payment's chain is complete
 * (a bridge: deposits it has reported); expiry waits for it as for the chain's horizon.
 */
export type LoadedCredits = Map<string, SourcedCredit[]> & {
  unreadable?: ReadonlySet<string>;
  evidenceThrough?: ReadonlyMap<string, Date>;
  /** Payments whose money on its way to their chain was given back or lost (a bridge refunded or failed), with why: `settle`'s `transitFailed`. */
  gaveUp?: ReadonlyMap<string, string>;
};

/** How far dispatch has looked at a chain's ingested evidence (stored by `db/dispatchCursors.ts`). */
export type { EvidenceCursor };

export type NewEvidence = { paymentIds: string[]; cursor: EvidenceCursor };

export type ReplayOptions = {
  dryRun: boolean;
  /** Called as the replay advances: how many of the range's blocks (slots) are done. */
  onProgress?: (done: bigint, total: bigint) => void;
};

/** What a replay found: evidence rows on chain in the range, how many were new to the service, and the payments they belong to. */
export type ReplayResult = {
  from: bigint;
  to: bigint;
  found: number;
  added: number;
  known: number;
  paymentIds: string[];
  /** Transactions in the range the node listed but did not serve, or served without a block time it could tell (Solana: a node without that history); the range is not fully read. */
  unread?: string[];
  /** The chain's final block (slot) when the replay read it: `to` is clamped to it. */
  finalHead: bigint;
  /**
   * When part of the range is not final yet: the chain's recent mean seconds per block (slot),
   * so the caller can tell how long until it is; null when the chain cannot tell it yet.
   */
  secondsPerBlock?: number | null;
};

/** What a prune removed (or, dry, would remove) and what stays. */
export type PruneResult = { removed: number; kept: number };
