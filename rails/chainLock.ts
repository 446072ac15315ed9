import pg from "pg";

/**
 * One operator signer at a time per chain, across every worker process: a session
 * advisory lock on its own connection (released if the process dies), so nonces are
 * never handed out twice (EVM) and the fee payer's SOL is judged against every transfer
 * already out (Solana). It covers signing, recording and broadcasting only; waiting
 * for receipts happens outside it, so many sweeps can go out in one block.
 */
export async function withChainLock<T>(databaseUrl: string, chainId: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // The database dropping this idle session (a restart: 57P01) is emitted as an event; unheard,
  // it would crash the worker. The lock goes with the session, but so does every write the
  // work makes (same database), and a rerun of the job finds its rows and the chain as they are.
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(726100, hashtext($1))", [chainId]);
    return await work();
  } finally {
    await client.end().catch(() => {});
  }
}
