/**
 * Prompts to act on rows. Postgres holds the truth; a prompt (a queued job) only says
 * "look at this now", so giving one twice, or losing one, is harmless: the periodic
 * recheck gives it again. The API and the jobs prompt through this port; `jobs/`
 * implements it on BullMQ.
 */
export interface Prompts {
  /**
   * Recompute these payments; `reason` (e.g. chain and block) makes the prompt's id, so the same
   * prompt twice is one. `through`: dispatch's prompts for a chain's evidence up to that block
   * (noted beside them, before its cursor in Postgres moves, so a store restored from an older
   * snapshot is seen behind the cursor).
   */
  reconcile(paymentIds: readonly string[], reason: string, through?: { chainId: string; block: bigint }): Promise<void>;
  /** Recompute these payments at `at`, their expiry (or just after it), so `expired` appears on time. */
  expire(paymentIds: readonly string[], at: Date): Promise<void>;
  /** Forward what these payments' deposit addresses owe their merchants (the job decides whether anything is owed). */
  sweep(paymentIds: readonly string[]): Promise<void>;
  /** Send a recorded refund. */
  refund(transferId: string): Promise<void>;
  /** Restock what creation draws on (Solana's pool of deposit addresses) now, rather than at the next periodic run. */
  replenish(): Promise<void>;
  /** Submit this x402 settlement's authorization (the worker holds the key that pays its gas); one job per settlement. */
  x402Settle(settlementId: string): Promise<void>;
  /** Read these cross-chain payments' bridge requests again (after `delayMs`, when given). */
  bridge(paymentIds: readonly string[], options?: { delayMs?: number }): Promise<void>;
  /**
   * Whether prompts given may have been lost since `markKept` last ran: the store was
   * restarted empty or flushed (its marker is gone), or restored from an older snapshot (its
   * note of what dispatch prompted is behind dispatch's `cursors` in Postgres). A lost prompt
   * whose payment shows no money yet is one the recheck alone would not give again before its expiry.
   */
  mayHaveLost(cursors: ReadonlyMap<string, bigint>): Promise<boolean>;
  /** Records that every prompt given until now (dispatch's up to `cursors`) was given again after a loss. */
  markKept(cursors: ReadonlyMap<string, bigint>): Promise<void>;
  close(): Promise<void>;
}
