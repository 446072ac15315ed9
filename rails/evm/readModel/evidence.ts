import { sql, type SQL } from "drizzle-orm";
import { INDEXED_TABLES, type IndexedTables } from "./tables.ts";

/** Which payments, or which indexed rows, an evidence query looks at. */
export type EvidenceScope = { paymentIds: readonly string[] } | { chainId: string; aboveBlock: bigint };

export type EvidenceRow = {
  payment_id: string;
  source: "settlement" | "transfer";
  amount: string;
  block_number: string;
  log_index: number;
  ts: string;
  tx_hash: string;
};

/**
 * The indexed evidence that pays payments, matched in this one place:
 * - `settlement`: a `PaymentSettled` of the payment's own intent, from the contract,
 *   on the chain, for the token and merchant the intent was signed for;
 * - `transfer`: a Transfer of the payment's token to its receive address on its chain.
 * Each join is written both ways round (payment → row and row → payment), so a lookup
 * by payment ids and a scan of new blocks both walk an index.
 */
export function evidenceQuery(schema: string, tables: IndexedTables, scope: EvidenceScope): SQL | null {
  const s = sql.identifier(schema);
  const where = (alias: "t" | "e") =>
    "paymentIds" in scope
      ? sql`p.id = any(${sql.param([...scope.paymentIds])}::uuid[])`
      : sql`${sql.raw(alias)}.chain_id = ${Number(scope.chainId)} and ${sql.raw(alias)}.block_number > ${scope.aboveBlock.toString()}::numeric`;
  const branches: SQL[] = [];
  if (tables.transfers) {
    branches.push(sql`
      select p.id as payment_id, 'transfer' as source, t.amount::text as amount, t.block_number::text as block_number, t.log_index, t.timestamp::text as ts, t.tx_hash
      from ${s}.${sql.identifier(INDEXED_TABLES.transfers)} t
      join payments p on t."to" = lower(p.receive_address) and p.chain_id = t.chain_id::text and t.token = lower(p.token_address)
      where ${where("t")}`);
  }
  if (tables.settlements) {
    // An intent's bytes32 id is the payment's uuid left-padded with zeros.
    branches.push(sql`
      select p.id as payment_id, 'settlement' as source, e.amount::text as amount, e.block_number::text as block_number, e.log_index, e.timestamp::text as ts, e.tx_hash
      from ${s}.${sql.identifier(INDEXED_TABLES.settlements)} e
      join payments p
        on p.id = (case when e.payment_id ~ '^0x0{32}[0-9a-f]{32}$' then substring(e.payment_id from 35 for 32)::uuid end)
        and e.payment_id = '0x' || repeat('0', 32) || replace(p.id::text, '-', '')
        and p.chain_id = e.chain_id::text and e.contract = lower(p.contract_address)
        and e.token = lower(p.token_address) and e.merchant = lower(p.merchant_wallet)
      where ${where("e")}`);
  }
  if (branches.length === 0) return null;
  return sql.join(branches, sql` union all `);
}
