import pg from "pg";

/** How long a lock's connection stays open with nothing to lock (a busy chain keeps it; a quiet one lets it go). */
const IDLE_CLOSE_MS = 10_000;

/** Signers waiting for a chain's lock in this process, one after another, and the connection they lock through. */
type Lane = { tail: Promise<unknown>; client: pg.Client | null; users: number; idle: ReturnType<typeof setTimeout> | null };
const lanes = new Map<string, Lane>();

/**
 * One operator signer at a time per chain, across every worker process: a session
 * advisory lock (released if the process dies), so nonces are never handed out twice (EVM)
 * and the fee payer's SOL is judged against every transfer already out (Solana). It covers
 * signing, recording and broadcasting only; waiting for receipts happens outside it, so many
 * sweeps can go out in one block.
 *
 * The signers of one process queue here first and lock through one connection, kept open
 * while they come (opening one per send cost more than the send). A connection that fails is
 * dropped: the lock went with its session, and the next signer opens another.
 */
export async function withChainLock<T>(databaseUrl: string, chainId: string, work: () => Promise<T>): Promise<T> {
  const key = `${databaseUrl}|${chainId}`;
  let lane = lanes.get(key);
  if (!lane) lanes.set(key, (lane = { tail: Promise.resolve(), client: null, users: 0, idle: null }));
  const own = lane;
  own.users++;
  if (own.idle) clearTimeout(own.idle);
  own.idle = null;
  const turn = own.tail.then(() => locked(own, databaseUrl, chainId, work));
  own.tail = turn.catch(() => {});
  try {
    return await turn;
  } finally {
    if (--own.users === 0) {
      own.idle = setTimeout(() => {
        if (own.users > 0) return;
        lanes.delete(key);
        void own.client?.end().catch(() => {});
        own.client = null;
      }, IDLE_CLOSE_MS);
      own.idle.unref?.();
    }
  }
}

async function locked<T>(lane: Lane, databaseUrl: string, chainId: string, work: () => Promise<T>): Promise<T> {
  const client = lane.client ?? (lane.client = await connect(lane, databaseUrl));
  try {
    await client.query("select pg_advisory_lock(726100, hashtext($1))", [chainId]);
  } catch (error) {
    drop(lane, client);
    throw error;
  }
  try {
    return await work();
  } finally {
    // Not unlocked: the connection goes, and the lock with its session.
    await client.query("select pg_advisory_unlock(726100, hashtext($1))", [chainId]).catch(() => drop(lane, client));
  }
}

async function connect(lane: Lane, databaseUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, keepAlive: true });
  // The database dropping this session (a restart: 57P01) is emitted as an event; unheard, it
  // would crash the worker. The lock goes with the session, but so does every write the work
  // makes (same database), and a rerun of the job finds its rows and the chain as they are.
  client.on("error", () => drop(lane, client));
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return client;
}

function drop(lane: Lane, client: pg.Client): void {
  if (lane.client === client) lane.client = null;
  void client.end().catch(() => {});
}
