import pg from "pg";

/**
 * The receive addresses the EVM indexer records transfers into, per chain and block: every
 * payment's receive/deposit address from its creation until `afterExpiryHours` past its
 * expiry (late money is still recorded and owed back), judged by the block's own time — not
 * the indexer's clock, which a re-index from `START_BLOCK` (a new indexer schema) or an
 * indexer far behind would put past the window of payments paid in those blocks. A deposit
 * address cannot receive money before its payment exists (it is derived from the payment's
 * id); an hour's margin covers block times running ahead of ours. Read from Postgres for
 * each block the indexer processes: a payment committed before its customer's transaction
 * was even sent is always in the set when that transaction's block is indexed, and nothing
 * is cached that could go stale. One indexed range read per block.
 */
export function createWatchedAddresses(databaseUrl: string, afterExpiryHours: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // An idle connection the database drops is replaced on the next query; unheard, the event would crash the indexer.
  pool.on("error", () => {});
  return {
    async of(chainId: number, blockTimestamp: bigint): Promise<`0x${string}`[]> {
      const { rows } = await pool.query<{ address: `0x${string}` }>(
        `select distinct lower(receive_address) as address from payments
         where chain_id = $1 and receive_address is not null
           and expires_at > to_timestamp($3) - make_interval(hours => $2)
           and created_at <= to_timestamp($3) + interval '1 hour'`,
        [String(chainId), afterExpiryHours, Number(blockTimestamp)],
      );
      return rows.map((r) => r.address);
    },
    close: () => pool.end(),
  };
}
