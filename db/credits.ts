import { sql } from "drizzle-orm";
import type { Credit } from "../domain/settle.ts";
import { queryRows, type Db } from "./client.ts";

export type PaymentCreditKey = {
  id: string;
  chainId: string;
  /** bytes32 form of the id, as the settlement contract emits it. */
  intentId: string;
  tokenAddress: string;
  merchantWallet: string;
  contractAddress: string | null;
  receiveAddress: string | null;
};

/**
 * Block number given to a simulated credit: after every real block (so it is the one
 * that completes the amount) and never reached by a head (so no live confirmation count
 * is derived from it); `final` makes it count as fully confirmed.
 */
export const SIMULATED_CREDIT_BLOCK = 2n ** 64n - 1n;

export type SourcedCredit = Credit & { txHash: string; source: "settlement" | "transfer" | "submission" | "simulation" };

const toCredit = (r: { amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }, source: SourcedCredit["source"]): SourcedCredit => ({
  amount: BigInt(r.amount),
  blockNumber: BigInt(r.block_number),
  logIndex: Number(r.log_index),
  timestamp: new Date(Number(r.ts) * 1000),
  txHash: r.tx_hash,
  source,
});

/**
 * Every credit the indexer has for these payments, in two kinds: `PaymentSettled`
 * events of the payment's own intent (the contract checked merchant, token and amount),
 * and transfers of the payment's token to its deposit address. Plus receipts a client
 * submitted that the indexer has not reached yet (`head` = indexed head per chain).
 */
export async function loadCredits(db: Db, indexerSchema: string, keys: PaymentCreditKey[], heads: Map<string, bigint>): Promise<Map<string, SourcedCredit[]>> {
  const result = new Map<string, SourcedCredit[]>(keys.map((k) => [k.id, []]));
  if (keys.length === 0) return result;
  const schema = sql.identifier(indexerSchema);
  const [tables] = await queryRows<{ settlement: boolean; transfer: boolean }>(db, sql`
    select to_regclass(${`"${indexerSchema}"."settlement_payment"`}) is not null as settlement, to_regclass(${`"${indexerSchema}"."token_transfer"`}) is not null as transfer`);

  // The four reads go out together (pipelined on the connection); their results are
  // applied in this order below.
  const intentIds = tables?.settlement ? keys.filter((k) => k.contractAddress).map((k) => k.intentId.toLowerCase()) : [];
  const settled =
    intentIds.length > 0
      ? queryRows<{ payment_id: string; chain_id: number; contract: string; token: string; merchant: string; amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }>(db, sql`
        select payment_id, chain_id, contract, token, merchant, amount::text, block_number::text, log_index, timestamp::text as ts, tx_hash
        from ${schema}."settlement_payment" where payment_id = any(${sql.param(intentIds)}::text[])`)
      : Promise.resolve([]);

  // Ponder's index on transfers is (chain_id, "to"): naming the chains lets the lookup use it
  // (on "to" alone it would read every indexed transfer). Only EVM chain ids (integers) are indexed there.
  const withAddress = tables?.transfer ? keys.filter((k) => k.receiveAddress && /^\d{1,18}$/.test(k.chainId)) : [];
  const addresses = withAddress.map((k) => k.receiveAddress!.toLowerCase());
  const chainIds = [...new Set(withAddress.map((k) => k.chainId))];
  const transfers =
    addresses.length > 0
      ? queryRows<{ chain_id: number; to: string; token: string; amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }>(db, sql`
        select chain_id, "to", token, amount::text, block_number::text, log_index, timestamp::text as ts, tx_hash
        from ${schema}."token_transfer" where chain_id = any(${sql.param(chainIds)}::bigint[]) and "to" = any(${sql.param(addresses)}::text[])`)
      : Promise.resolve([]);

  const submitted = queryRows<{ payment_id: string; chain_id: string; amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }>(db, sql`
    select payment_id, chain_id, amount::text, block_number::text, log_index, extract(epoch from block_timestamp)::bigint::text as ts, tx_hash
    from payment_submissions where payment_id = any(${sql.param(keys.map((k) => k.id))}::uuid[])`);

  // Sandbox simulations: test payments only (the join makes a live payment ignore any such row).
  const simulated = queryRows<{ payment_id: string; amount: string; ts: string; tx_hash: string }>(db, sql`
    select s.payment_id, s.amount::text, extract(epoch from s.created_at)::text as ts, s.tx_hash
    from simulated_credits s join payments p on p.id = s.payment_id and p.is_test and p.mode = 'test'
    where s.payment_id = any(${sql.param(keys.map((k) => k.id))}::uuid[])`);

  const [settledRows, transferRows, submissionRows, simulatedRows] = await Promise.all([settled, transfers, submitted, simulated]);

  if (settledRows.length > 0) {
    const byIntent = new Map(keys.map((k) => [k.intentId.toLowerCase(), k]));
    for (const r of settledRows) {
      const key = byIntent.get(r.payment_id.toLowerCase());
      // Only the contract, chain, token and merchant the intent was signed for count.
      if (
        key &&
        String(r.chain_id) === key.chainId &&
        r.contract.toLowerCase() === key.contractAddress?.toLowerCase() &&
        r.token.toLowerCase() === key.tokenAddress.toLowerCase() &&
        r.merchant.toLowerCase() === key.merchantWallet.toLowerCase()
      ) {
        result.get(key.id)!.push(toCredit(r, "settlement"));
      }
    }
  }

  if (transferRows.length > 0) {
    const byAddress = new Map(withAddress.map((k) => [`${k.chainId}:${k.receiveAddress!.toLowerCase()}`, k]));
    for (const r of transferRows) {
      const key = byAddress.get(`${r.chain_id}:${r.to.toLowerCase()}`);
      if (key && r.token.toLowerCase() === key.tokenAddress.toLowerCase()) result.get(key.id)!.push(toCredit(r, "transfer"));
    }
  }

  for (const r of submissionRows) {
    const head = heads.get(r.chain_id);
    const credits = result.get(r.payment_id)!;
    // Once the indexer has passed the block, only indexed rows decide (a reorged tx must not live on).
    if (head !== undefined && BigInt(r.block_number) <= head) continue;
    if (credits.some((c) => c.txHash.toLowerCase() === r.tx_hash.toLowerCase() && c.logIndex === Number(r.log_index))) continue;
    credits.push(toCredit(r, "submission"));
  }

  for (const r of simulatedRows) {
    result.get(r.payment_id)!.push({
      amount: BigInt(r.amount),
      blockNumber: SIMULATED_CREDIT_BLOCK,
      logIndex: 0,
      timestamp: new Date(Math.round(Number(r.ts) * 1000)),
      txHash: r.tx_hash,
      source: "simulation",
      final: true,
    });
  }
  return result;
}
