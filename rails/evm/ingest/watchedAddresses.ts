import pg from "pg";

/** How long after its payment's expiry an address is watched at all, and how much of that in every block. */
export type WatchWindows = { afterExpiryHours: number; everyBlockAfterExpiryMinutes: number };

/**
 * The receive addresses the EVM indexer records transfers into, per chain: every payment's
 * receive/deposit address from its creation until `afterExpiryHours` past its expiry (late
 * money is still recorded and owed back), judged by the blocks' own time — not the
 * indexer's clock, which a re-index from `START_BLOCK` (a new indexer schema) or an indexer
 * far behind would put past the window of payments paid in those blocks. A deposit address
 * cannot receive money before its payment exists (it is derived from the payment's id); an
 * hour's margin covers block times running ahead of ours.
 *
 * Two sets share that window. `everyBlock`: from creation until `everyBlockAfterExpiryMinutes`
 * past expiry — where money is expected, asked for in each block. `late`: the rest of the
 * window, asked for once per range of blocks (`lateInRange`); a busy merchant's week of
 * expired addresses is hundreds of times its open ones. The two meet without a gap: a
 * block at time t asks for an address in `everyBlock` while t < expiry + M, and its range's
 * `late` set holds it from t ≥ expiry + M until expiry + H.
 *
 * Read from Postgres each time (one indexed range read on `payments_watched_idx`): a
 * payment committed before its customer's transaction was even sent is always in the set
 * when that transaction's block is indexed, and nothing is cached that could go stale.
 */
export function createWatchedAddresses(databaseUrl: string, windows: WatchWindows) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // An idle connection the database drops is replaced on the next query; unheard, the event would crash the indexer.
  pool.on("error", () => {});
  // The every-block watch never outlasts the whole watch.
  const everyBlockMinutes = Math.min(windows.everyBlockAfterExpiryMinutes, windows.afterExpiryHours * 60);
  const addresses = async (text: string, values: unknown[]) => (await pool.query<{ address: `0x${string}` }>(text, values)).rows.map((r) => r.address);
  return {
    /** The addresses asked for in a block of this time (seconds): open, or expired within the every-block minutes. */
    everyBlock(chainId: number, blockTimestamp: bigint): Promise<`0x${string}`[]> {
      return addresses(
        `select distinct lower(receive_address) as address from payments
         where chain_id = $1 and receive_address is not null
           and expires_at > to_timestamp($3) - make_interval(mins => $2)
           and created_at <= to_timestamp($3) + interval '1 hour'`,
        [String(chainId), everyBlockMinutes, Number(blockTimestamp)],
      );
    },
    /**
     * The addresses a range of blocks from time `from` to time `to` (seconds) is scanned
     * for: those whose late watch (expiry + M ≤ t < expiry + H) meets the range.
     */
    lateInRange(chainId: number, range: { from: bigint; to: bigint }): Promise<`0x${string}`[]> {
      if (windows.afterExpiryHours * 60 <= everyBlockMinutes) return Promise.resolve([]);
      return addresses(
        `select distinct lower(receive_address) as address from payments
         where chain_id = $1 and receive_address is not null
           and expires_at <= to_timestamp($5) - make_interval(mins => $3)
           and expires_at > to_timestamp($4) - make_interval(hours => $2)`,
        [String(chainId), windows.afterExpiryHours, everyBlockMinutes, Number(range.from), Number(range.to)],
      );
    },
    close: () => pool.end(),
  };
}
