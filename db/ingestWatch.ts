import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { announcePaymentChanges } from "./paymentChanges.ts";

export type IngestCheck = {
  chainId: string;
  /** When the check began (before either head was read). */
  at: Date;
  /** Blocks (slots) ingest is behind the chain's head; null when the head could not be read. */
  lag: bigint | null;
  maxLag: bigint;
  /** Up to when ingest is known to have read everything (its evidence horizon): a stall this check opens began then. */
  currentUntil?: Date | null;
  /** Found at the head (lag 0), the moment ingest counts as current from (`caught_up_at`); `at` unless given. */
  caughtUpAt?: Date;
};

export type IngestCheckResult = {
  /** This check began a stall. */
  opened: boolean;
  /** This check ended a stall: when it began, and the payments whose expiry it extended. */
  closed: { since: Date; extended: string[] } | null;
};

/**
 * Records one look at a chain's ingest, in one transaction holding the chain's row:
 * behind by more than `maxLag` (or the node unreadable) opens a stall, dated from when
 * ingest was last known current (`currentUntil`); back within the lag
 * closes the stall and pushes every payment still open on the chain that was open during
 * it back by the time it overlapped the stall (`until − max(stall start, created)`), so a
 * customer loses no time to the service falling behind. Closing is conditional on the
 * row's state under its lock, so a check run twice (or by two workers) extends once. A
 * cross-chain payment is not extended: its customer pays on the origin chain, and the
 * bridge was given its deadline when quoted (a deposit after it is refunded, not filled).
 */
export async function recordIngestCheck(db: Db, check: IngestCheck): Promise<IngestCheckResult> {
  const { chainId, at, lag, maxLag, currentUntil } = check;
  const caughtUpAt = check.caughtUpAt ?? at;
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    await tx.execute(sql`insert into ingest_watch (chain_id, checked_at) values (${chainId}, ${at}) on conflict (chain_id) do nothing`);
    const [row] = await queryRows<{ stalled_since: Date | null }>(tx, sql`select stalled_since from ingest_watch where chain_id = ${chainId} for update`);
    const stalled = lag === null || lag > maxLag;
    let since = row!.stalled_since ? new Date(row!.stalled_since) : null;
    let result: IngestCheckResult = { opened: false, closed: null };
    if (stalled && !since) {
      // Seen now, but ingest fell behind when it stopped being current: from then on it counts.
      since = currentUntil && currentUntil < at ? currentUntil : at;
      result = { opened: true, closed: null };
    } else if (!stalled && since) {
      const extended = await queryRows<{ id: string }>(tx, sql`
        update payments set expires_at = expires_at + (${at}::timestamptz - greatest(${since}::timestamptz, created_at)), updated_at = now()
        where chain_id = ${chainId} and status = 'pending' and closed_at is null and expires_at > ${since}::timestamptz and created_at < ${at}::timestamptz
          and kind <> 'cross_chain'
        returning id`);
      await announcePaymentChanges(tx, extended.map((r) => r.id));
      result = { opened: false, closed: { since, extended: extended.map((r) => r.id) } };
      since = null;
    }
    await tx.execute(sql`
      update ingest_watch set stalled_since = ${since}, lag = ${lag === null ? null : lag.toString()}::numeric, checked_at = ${at},
        caught_up_at = case when ${lag === 0n}::boolean then greatest(caught_up_at, ${caughtUpAt}::timestamptz) else caught_up_at end
      where chain_id = ${chainId}`);
    return result;
  });
}

/** Chains whose ingest is stalled now, and since when. */
export async function openStalls(db: Db): Promise<Map<string, Date>> {
  const rows = await queryRows<{ chain_id: string; stalled_since: Date }>(db, sql`select chain_id, stalled_since from ingest_watch where stalled_since is not null`);
  return new Map(rows.map((r) => [r.chain_id, new Date(r.stalled_since)]));
}

/** Per chain, the last check that found ingest at the chain's head. */
export async function caughtUpTimes(db: Db): Promise<Map<string, Date>> {
  const rows = await queryRows<{ chain_id: string; caught_up_at: Date }>(db, sql`select chain_id, caught_up_at from ingest_watch where caught_up_at is not null`);
  return new Map(rows.map((r) => [r.chain_id, new Date(r.caught_up_at)]));
}
