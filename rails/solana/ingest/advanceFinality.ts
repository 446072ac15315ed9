import { sql } from "drizzle-orm";
import type { Connection } from "@solana/web3.js";
import { queryRows, type Db } from "../../../db/client.ts";
import { STATUSES_PER_CALL, CALLS_PER_BATCH } from "../rpcLimits.ts";
import { tokenBalanceDelta, type TokenCredit } from "../tokenBalanceDelta.ts";
import { servedBySignature } from "./readCredits.ts";
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
 * slot, which does not know the transaction *yet*. A transaction final at another slot than
 * its credit was read at (read on a dropped fork, landed again on the kept one) is read again
 * at `finalized`: its credit takes the kept fork's amount, slot and time (or is removed), and
 * an address whose cursor it was is listed again whole. The watermark is then the finalized
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
  const moved: string[] = [];
  for (let i = 0; i < open.length; i += STATUSES_PER_CALL) {
    const batch = open.slice(i, i + STATUSES_PER_CALL);
    const { context, value } = await connection.getSignatureStatuses(batch.map((r) => r.signature), { searchTransactionHistory: true });
    const caughtUp = BigInt(context.slot) >= finalized;
    batch.forEach((r, j) => {
      const status = value[j];
      // Final at another slot than it was read at: it was read on a fork that was dropped and
      // landed again on the kept one, where its amount and time may differ: read again.
      if (status?.confirmationStatus === "finalized") (status.err !== null ? dropped : BigInt(status.slot) !== BigInt(r.slot) ? moved : done).push(r.signature);
      else if (!status && caughtUp && BigInt(r.slot) + BLOCKHASH_EXPIRY_SLOTS < finalized) dropped.push(r.signature);
    });
  }
  const relanded = moved.length === 0 ? [] : await readRelanded(connection, db, chainId, [...new Set(moved)]);
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    await lockChainIngest(tx, chainId);
    for (const c of relanded) {
      await tx.execute(
        c.credit
          ? sql`update solana_credits set amount = ${c.credit.amount.toString()}::numeric, account_index = ${c.credit.accountIndex}, slot = ${c.slot.toString()}::numeric,
                  block_time = ${c.blockTime.toISOString()}::timestamptz, finalized = true, seq = nextval(pg_get_serial_sequence('solana_credits', 'seq'))
                where chain_id = ${chainId} and signature = ${c.signature} and account = ${c.account} and removed_at is null`
          : sql`update solana_credits set removed_at = now(), seq = nextval(pg_get_serial_sequence('solana_credits', 'seq'))
                where chain_id = ${chainId} and signature = ${c.signature} and account = ${c.account} and removed_at is null`,
      );
    }
    if (relanded.length > 0) {
      // An address whose cursor is a re-landed transaction would list only what is newer than
      // its new slot, never a transfer of the kept fork below it: such an address is listed again whole.
      await tx.execute(sql`delete from solana_account_cursors where chain_id = ${chainId} and last_signature = any(${sql.param([...new Set(relanded.map((c) => c.signature))])}::text[])`);
    }
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
    if (row!.before !== row!.after || dropped.length > 0 || relanded.length > 0) await tx.execute(sql`select pg_notify(${deps.channel}, ${chainId})`);
    return BigInt(row!.after);
  });
}

type Relanded = { signature: string; account: string; slot: bigint; blockTime: Date; credit: TokenCredit | null };

/**
 * The credits of transactions final at another slot than they were read at, read again at
 * `finalized`: what each pays its account there (null: nothing, it is removed). A
 * transaction not served yet, or without a block time, is left for the next pass (its
 * credit stays unfinalized and holds the watermark below it).
 */
async function readRelanded(connection: Connection, db: Db, chainId: string, signatures: string[]): Promise<Relanded[]> {
  const rows = await queryRows<{ signature: string; account: string; mint: string; token_program: string }>(db, sql`
    select signature, account, mint, token_program from solana_credits
    where chain_id = ${chainId} and signature = any(${sql.param(signatures)}::text[]) and removed_at is null and not finalized`);
  const result: Relanded[] = [];
  for (let i = 0; i < signatures.length; i += CALLS_PER_BATCH) {
    const wanted = signatures.slice(i, i + CALLS_PER_BATCH);
    const served = servedBySignature(wanted, await connection.getParsedTransactions(wanted, { maxSupportedTransactionVersion: 0, commitment: "finalized" }));
    for (const r of rows.filter((row) => wanted.includes(row.signature))) {
      const transaction = served.get(r.signature);
      if (!transaction?.meta || transaction.blockTime == null) continue;
      const credit = tokenBalanceDelta(transaction, { account: r.account, mint: r.mint, tokenProgram: r.token_program });
      result.push({ signature: r.signature, account: r.account, slot: BigInt(transaction.slot), blockTime: new Date(transaction.blockTime * 1000), credit });
    }
  }
  return result;
}
