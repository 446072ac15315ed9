import pg from "pg";

/**
 * The receive addresses the EVM indexer records transfers into, per chain: every
 * payment's receive/deposit address until `afterExpiryHours` past its expiry (late money
 * is still recorded and owed back). Read whole from Postgres for each block the indexer
 * processes: a payment committed before its customer's transaction was even sent is
 * always in the set when that transaction's block is indexed, whatever the timing, and
 * nothing is cached that could go stale. One indexed range read per block.
 */
export function createWatchedAddresses(databaseUrl: string, afterExpiryHours: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // An idle connection the database drops is replaced on the next query; unheard, the event would crash the indexer.
  pool.on("error", () => {});
  return {
    async of(chainId: number): Promise<`0x${string}`[]> {
      const { rows } = await pool.query<{ address: `0x${string}` }>(
        `select distinct lower(receive_address) as address from payments
         where chain_id = $1 and receive_address is not null and expires_at > now() - make_interval(hours => $2)`,
        [String(chainId), afterExpiryHours],
      );
      return rows.map((r) => r.address);
    },
    close: () => pool.end(),
  };
}
