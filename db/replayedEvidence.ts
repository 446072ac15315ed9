import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { byColumnsGiven, recordSet } from "./jsonRecords.ts";
import { replayedSettlementPayments, replayedSplitPayments, replayedTokenTransfers } from "./schema/index.ts";

export type ReplayedTransfer = typeof replayedTokenTransfers.$inferInsert;
export type ReplayedSettlement = typeof replayedSettlementPayments.$inferInsert;
export type ReplayedSplit = typeof replayedSplitPayments.$inferInsert;

/** Rows a statement inserts at a time: Postgres takes at most 65,535 parameters in one (a split row has 20). */
const ROWS_PER_INSERT = 1_000;

/** Records replayed rows (a row already recorded stays as it is); returns the ids that were new. */
export async function insertReplayed(db: Db, rows: { transfers: ReplayedTransfer[]; settlements: ReplayedSettlement[]; splits?: ReplayedSplit[] }): Promise<Set<string>> {
  const added = new Set<string>();
  for (let i = 0; i < rows.transfers.length; i += ROWS_PER_INSERT) {
    const batch = rows.transfers.slice(i, i + ROWS_PER_INSERT);
    for (const r of await db.insert(replayedTokenTransfers).values(batch).onConflictDoNothing().returning({ id: replayedTokenTransfers.id })) added.add(r.id);
  }
  // Settlements through a record set: their `transfers` is jsonb, which drizzle on Bun's driver would store as a JSON string.
  for (const group of byColumnsGiven(rows.settlements)) {
    for (let i = 0; i < group.length; i += ROWS_PER_INSERT) {
      const { columns, records } = recordSet(replayedSettlementPayments, group.slice(i, i + ROWS_PER_INSERT));
      const inserted = await queryRows<{ id: string }>(db, sql`insert into ${replayedSettlementPayments} (${columns}) select ${columns} from ${records} on conflict do nothing returning id`);
      for (const r of inserted) added.add(r.id);
    }
  }
  const splits = rows.splits ?? [];
  for (let i = 0; i < splits.length; i += ROWS_PER_INSERT) {
    const batch = splits.slice(i, i + ROWS_PER_INSERT);
    for (const r of await db.insert(replayedSplitPayments).values(batch).onConflictDoNothing().returning({ id: replayedSplitPayments.id })) added.add(r.id);
  }
  return added;
}

/** Lower-case receive addresses of every payment on a chain (what a replay looks for transfers into). */
export async function receiveAddressesOn(db: Db, chainId: string): Promise<`0x${string}`[]> {
  const rows = await queryRows<{ address: `0x${string}` }>(db, sql`select distinct lower(receive_address) as address from payments where chain_id = ${chainId} and receive_address is not null`);
  return rows.map((r) => r.address);
}

/**
 * The payments on a chain that transfers into these addresses, settlement events of these
 * bytes32 intents, or split payments naming these payment ids (a dry run's estimate: whether
 * a split's params are the issued ones is not checked) would pay.
 */
export async function paymentsPaidBy(db: Db, chainId: string, found: { addresses: string[]; intents: string[]; splitPaymentIds?: string[] }): Promise<string[]> {
  const uuids = [
    ...found.intents.filter((i) => /^0x0{32}[0-9a-f]{32}$/.test(i)).map((i) => i.slice(34).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5")),
    ...(found.splitPaymentIds ?? []),
  ];
  const rows = await queryRows<{ id: string }>(db, sql`
    select id from payments where chain_id = ${chainId}
      and (lower(receive_address) = any(${sql.param(found.addresses)}::text[]) or id = any(${sql.param(uuids)}::uuid[]))`);
  return rows.map((r) => r.id);
}
