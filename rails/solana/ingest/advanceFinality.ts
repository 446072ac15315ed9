import { sql } from "drizzle-orm";
import type { Connection } from "@solana/web3.js";
import { queryRows, type Db } from "../../../db/client.ts";
import { STATUSES_PER_CALL } from "../rpcLimits.ts";
import { lockChainIngest } from "./recordCredits.ts";

/**
 * Slots after which a transaction's blockhash has expired for sure: a dropped one can no
 * longer land. A blockhash lives 150 *blocks*; slots a leader skips make that longer in
 * slots, so twice as many slots leave room for a skip rate far above the cluster's.
 */
const BLOCKHASH_EXPIRY_SLOTS = 300n;

/**
 * Moves a chain's finalized watermark: reads the confirmed and finalized slots, checks
 * every credit not yet seen at `finalized` up to the finalized slot
 * (`getSignatureStatuses`, with history), marks those the node reports `finalized`,
 * and removes (the payment gets `reverted`) those it reports finalized but *failed*
 * (credited on a fork that was dropped, the transaction landed again on the kept one and
 * failed there: final, whichever node says it) and those it does not know at all once
 * their blockhash has expired (a fork dropped them) — these only on the word of a node
 * that has itself reached the finalized slot read (the answer's context slot): behind a
 * load balancer the statuses may come from a node lagging behind the one that gave the
 * slot, which does not know the transaction *yet*. The watermark is then the finalized
 * slot, held below the oldest credit still unchecked, and never moves back. Announces a
 * change on `channel`. Returns the watermark.
 */
export async function advanceFinality(deps: { db: Db; connection: Connection; chainId: string; channel: string }): Promise<bigint> {
  const { connection, db, chainId } = deps;
  const [confirmed, finalized] = (await Promise.all([connection.getSlot("confirmed"), connection.getSlot("finalized")])).map(BigInt) as [bigint, bigint];
  const open = await queryRows<{ signature: string; slot: string }>(db, sql`
    select distinct signature, slot::text from solana_credits
    where chain_id = ${chainId} and not finalized and removed_at is null and slot <= ${finalized.toString()}::numeric`);
  const done: string[] = [];
  const dropped: string[] = [];
  for (let i = 0; i < open.length; i += STATUSES_PER_CALL) {
    const batch = open.slice(i, i + STATUSES_PER_CALL);
    const { context, value } = await connection.getSignatureStatuses(batch.map((r) => r.signature), { searchTransactionHistory: true });
    const caughtUp = BigInt(context.slot) >= finalized;
    batch.forEach((r, j) => {
      const status = value[j];
      if (status?.confirmationStatus === "finalized") (status.err === null ? done : dropped).push(r.signature);
      else if (!status && caughtUp && BigInt(r.slot) + BLOCKHASH_EXPIRY_SLOTS < finalized) dropped.push(r.signature);
    });
  }
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    await lockChainIngest(tx, chainId);
    if (done.length > 0) {
      await tx.execute(sql`update solana_credits set finalized = true where chain_id = ${chainId} and signature = any(${sql.param(done)}::text[])`);
    }
    if (dropped.length > 0) {
      await tx.execute(sql`
        update solana_credits set removed_at = now(), seq = nextval(pg_get_serial_sequence('solana_credits', 'seq'))
        where chain_id = ${chainId} and signature = any(${sql.param(dropped)}::text[]) and removed_at is null`);
    }
    const [row] = await queryRows<{ before: string | null; after: string }>(tx, sql`
      with previous as (select finalized_slot from solana_ingest_heads where chain_id = ${chainId}),
      bound as (
        select least(${finalized.toString()}::numeric,
                     coalesce((select min(slot) - 1 from solana_credits where chain_id = ${chainId} and not finalized and removed_at is null),
                              ${finalized.toString()}::numeric)) as slot)
      insert into solana_ingest_heads (chain_id, confirmed_slot, finalized_slot)
      values (${chainId}, ${confirmed.toString()}::numeric, (select slot from bound))
      on conflict (chain_id) do update set
        confirmed_slot = greatest(solana_ingest_heads.confirmed_slot, excluded.confirmed_slot),
        finalized_slot = greatest(solana_ingest_heads.finalized_slot, excluded.finalized_slot),
        updated_at = now()
      returning (select finalized_slot::text from previous) as before, finalized_slot::text as after`);
    if (row!.before !== row!.after || dropped.length > 0) await tx.execute(sql`select pg_notify(${deps.channel}, ${chainId})`);
    return BigInt(row!.after);
  });
}
