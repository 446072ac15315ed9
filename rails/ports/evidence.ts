import type pg from "pg";
import type { Network, Role } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { RailContext } from "./context.ts";
import type { EvidenceCursor, IndexedHeads, LoadedCredits, NewEvidence, PruneResult, ReplayOptions, ReplayResult } from "./evidenceTypes.ts";

/**
 * Where a payment's credits come from, in the one shape `settle` takes: a chain's ingest
 * (`ChainIngest`), or a source outside the payment's chain (a bridge reporting its fills).
 * The registry names the source of each payment (`evidenceFor(network, payment)`).
 */
export interface EvidenceSource {
  /** Its name in logs and the CLI's output ("evm", "solana", "bridge"). */
  readonly name: string;
  /**
   * The evidence for these payments (all this source's) in the one credit shape `settle`
   * takes. `heads` are the indexed heads the caller read once for this run.
   */
  loadCredits(ctx: RailContext, payments: readonly PaymentRow[], heads: ReadonlyMap<string, bigint>): Promise<LoadedCredits>;
  /**
   * Money the customers of these payments paid that has not reached the payment's chain yet
   * (a bridge fill under way), by payment: when it was paid. `settle` keeps such a payment
   * pending past its expiry while the money travels. Sources whose money arrives on the
   * payment's chain directly leave it out.
   */
  inTransit?(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, Date>>;
  /**
   * Looks for this payment's evidence on chain now, beyond what ingest has reached, and
   * records what it finds as ingested evidence (Solana Pay: the transfer carrying its
   * reference). `verify-qr` calls it before reconciling; left out where ingest is enough.
   */
  refreshEvidence?(ctx: RailContext, payment: PaymentRow, network: Network): Promise<void>;
  /**
   * Who sent `transaction` (the EVM sender, Solana's fee payer): what `verify-qr` reports as
   * the payer to the client SDK. Null when the chain does not know it; a source whose payments
   * arrive by no transaction of the customer's on the payment's chain (a bridge) leaves it out.
   */
  transactionSender?(network: Network, transaction: string, timeoutMs: number): Promise<string | null>;
}

/**
 * An evidence source that follows every chain of one network type itself (an indexer, a
 * subscriber) and writes what it finds to its own tables: reconcile asks how far it got,
 * dispatch what is new, the CLI to replay or prune.
 */
export interface ChainIngest extends EvidenceSource {
  /** How far this ingest has verified each of its chains (chain id → block or slot), and which it is re-reading. */
  indexedHeads(ctx: RailContext): Promise<IndexedHeads>;
  /**
   * Per chain, a time such that every credit stamped at or before it has been ingested
   * (the indexed block's time; now, when ingest last stood at the chain's head). Expiry
   * waits for it to pass the deadline. A chain left out has no such bound: its expiry
   * is held only while the worker's watch sees its ingest stalled.
   */
  evidenceHorizons(ctx: RailContext): Promise<Map<string, Date>>;
  /**
   * Payments with evidence ingested on `network` since `cursor` (null: since the beginning),
   * up to `head`; and the cursor to store for next time. Rows rewritten by a reorg below the
   * cursor count as new.
   */
  newEvidence(ctx: RailContext, network: Network, cursor: EvidenceCursor | null, head: bigint): Promise<NewEvidence>;
  /**
   * True when ingest can add evidence while the indexed head stands still (Solana: credits
   * land at `confirmed`, the head moves with `finalized`): dispatch then looks on every wake-up.
   */
  readonly evidenceAheadOfHead: boolean;
  /** Makes the ingest announce each commit on `channel` (Postgres NOTIFY); false until its tables exist. */
  announceIngest(client: pg.Client, ctx: RailContext, channel: string): Promise<boolean>;
  /**
   * Reads blocks (slots) `from`..`to` of `network` again straight from the chain and records
   * the evidence of every payment there that ingest does not hold yet; what it holds stays
   * as it is, so replaying twice changes nothing. Only final blocks are replayed (above
   * them a reorg may still change things: that is ingest's to follow); `to` is clamped to
   * the final block. `dryRun` finds without recording. The caller reconciles `paymentIds`.
   */
  replay(ctx: RailContext, network: Network, range: { from: bigint; to: bigint }, options: ReplayOptions): Promise<ReplayResult>;
  /** How the chain is counted and who follows it, in words (`cli replay`'s output): "blocks", "the indexer". */
  readonly ingestTerms: { unit: string; follower: string };
  /** The role (`scripts/role.ts`) whose process follows these chains and reports their lag on its `/metrics`. */
  readonly ingestRole: Role;
  /**
   * Removes ingested rows that are no payment's evidence (never one that is: payments'
   * rows are their audit trail). An ingest that stores only watched evidence has nothing
   * to prune and leaves this out.
   */
  pruneIngested?(ctx: RailContext, options: { dryRun: boolean }): Promise<PruneResult>;
  /**
   * Forgets how far ingest got on these chains (heads, cursors): the sandbox's local chains
   * start over at block (slot) 0 under the same ids on every start, and a head noted on the
   * previous chain would stand ahead of the new one until it caught up. Ingests whose notes go
   * with their indexer's schema (dropped at the sandbox's start) leave this out.
   */
  forgetChains?(db: Db, chainIds: readonly string[]): Promise<void>;
}
