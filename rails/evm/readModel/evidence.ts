import { sql, type SQL } from "drizzle-orm";
import { splitCallMatch } from "../../../db/splitCallMatch.ts";
import { paymentIdToBytes32 } from "../settlement/paymentIdToBytes32.ts";
import { INDEXED_TABLES, type IndexedTables } from "./tables.ts";

/** Which payments (their ids and receive addresses), or which indexed rows, an evidence query looks at. */
export type EvidenceScope = { payments: ReadonlyArray<{ id: string; receiveAddress: string | null }> } | { chainId: string; aboveBlock: bigint };

export type EvidenceRow = {
  payment_id: string;
  source: "settlement" | "transfer";
  amount: string;
  block_number: string;
  log_index: number;
  ts: string;
  tx_hash: string;
  /** Who paid: the transfer's `from`, or the settlement event's `payer` (lowercase hex). */
  payer: string;
};

/**
 * The indexed evidence that pays payments, matched in this one place:
 * - `settlement`: a `PaymentSettled` of the payment's own intent, from the contract,
 *   on the chain, for the token and merchant the intent was signed for, counting what its
 *   token Transfers delivered to the merchant and the fee recipient, at most the intent's
 *   amount (a fee-on-transfer token delivers less: `settledCredit`);
 * - `transfer`: a Transfer of the payment's token to its receive address on its chain;
 * - `settlement` too: a `SplitPaymentExecuted` (the client SDK's `splitPayment`) whose params
 *   are exactly the call the service issued for the payment (`payments.contract_call`):
 *   token, amount, payment id, the three recipients and their shares. Its credit is what
 *   the recipients received. Any other call paid whoever it named and pays no payment.
 * Each join is written both ways round (payment → row and row → payment), so a lookup
 * by payment ids and a scan of new blocks both walk an index: the union below cannot take
 * a join condition inside, so a lookup also names the indexed keys it needs (intent ids,
 * receive addresses) as plain conditions, which do go inside. The indexer's rows are read
 * together with what an operator's replay found that the indexer had missed
 * (`replayed_*`, final blocks only); a row both hold counts once.
 */
export function evidenceQuery(schema: string, tables: IndexedTables, scope: EvidenceScope): SQL {
  const s = sql.identifier(schema);
  const where = (alias: "t" | "e" | "x") => {
    if (!("payments" in scope)) return sql`${sql.raw(alias)}.chain_id = ${Number(scope.chainId)} and ${sql.raw(alias)}.block_number > ${scope.aboveBlock.toString()}::numeric`;
    const ids = sql`p.id = any(${sql.param(scope.payments.map((p) => p.id))}::uuid[])`;
    if (alias === "e") return sql`${ids} and e.payment_id = any(${sql.param(scope.payments.map((p) => paymentIdToBytes32(p.id)))}::text[])`;
    if (alias === "x") return sql`${ids} and x.payment_id = any(${sql.param(scope.payments.map((p) => p.id.toLowerCase()))}::text[])`;
    const addresses = [...new Set(scope.payments.flatMap((p) => (p.receiveAddress ? [p.receiveAddress.toLowerCase()] : [])))];
    return sql`${ids} and t."to" = any(${sql.param(addresses)}::text[])`;
  };
  // Replayed rows count unless the indexer has the same row (a rebuilt index may reach them too).
  const withReplayed = (indexed: string, replayed: string, columns: string, present: boolean) => {
    const cols = sql.raw(columns);
    const table = sql`${s}.${sql.identifier(indexed)}`;
    return present
      ? sql`(select ${cols} from ${table} union all
             select ${cols} from ${sql.identifier(replayed)} r where not exists (select 1 from ${table} i where i.id = r.id))`
      : sql`${sql.identifier(replayed)}`;
  };
  const transfers = withReplayed(INDEXED_TABLES.transfers, "replayed_token_transfer", `id, chain_id, block_number, tx_hash, log_index, token, "from", "to", amount, timestamp`, tables.transfers);
  const settlements = withReplayed(
    INDEXED_TABLES.settlements,
    "replayed_settlement_payment",
    "id, chain_id, payment_id, payer, token, merchant, amount, transfers, contract, block_number, tx_hash, log_index, timestamp",
    tables.settlements,
  );
  // What the settlement's Transfers delivered to the merchant and the fee recipient, at most the
  // intent's amount; a row recorded before the Transfers were (a replay's) counts its amount.
  const settledAmount = sql`(case when e.transfers is null then e.amount when jsonb_typeof(e.transfers) <> 'array' then 0 else least(e.amount, (
    select coalesce(sum((x->>'amount')::numeric), 0) from jsonb_array_elements(e.transfers) x
    where x->>'to' in (lower(p.merchant_wallet), lower(coalesce(p.fee_recipient, p.merchant_wallet))))) end)`;
  const splits = withReplayed(
    INDEXED_TABLES.splits,
    "replayed_split_payment",
    "id, chain_id, payment_id, payer, token, amount, received, recipient1, recipient2, recipient3, recipient1_percentage, recipient2_percentage, recipient3_percentage, contract, block_number, tx_hash, log_index, timestamp",
    tables.splits === true,
  );
  // An intent's bytes32 id is the payment's uuid left-padded with zeros.
  return sql`
    select p.id as payment_id, 'transfer' as source, t.amount::text as amount, t.block_number::text as block_number, t.log_index, t.timestamp::text as ts, t.tx_hash, t."from" as payer
    from ${transfers} t
    join payments p on t."to" = lower(p.receive_address) and p.chain_id = t.chain_id::text and t.token = lower(p.token_address)
    where ${where("t")}
    union all
    select p.id as payment_id, 'settlement' as source, ${settledAmount}::text as amount, e.block_number::text as block_number, e.log_index, e.timestamp::text as ts, e.tx_hash, e.payer
    from ${settlements} e
    join payments p
      on p.id = (case when e.payment_id ~ '^0x0{32}[0-9a-f]{32}$' then substring(e.payment_id from 35 for 32)::uuid end)
      and e.payment_id = '0x' || repeat('0', 32) || replace(p.id::text, '-', '')
      and p.chain_id = e.chain_id::text and e.contract = lower(p.contract_address)
      and e.token = lower(p.token_address) and e.merchant = lower(p.merchant_wallet)
    where ${where("e")}
    union all
    select p.id as payment_id, 'settlement' as source, x.received::text as amount, x.block_number::text as block_number, x.log_index, x.timestamp::text as ts, x.tx_hash, x.payer
    from ${splits} x
    join payments p on ${sql.raw(splitCallMatch)}
    where ${where("x")} and x.received > 0`;
}
