import type { Network } from "../config/types.ts";
import { splitCallMatch } from "./splitCallMatch.ts";

/** What `syncAnalytics` needs: the indexer's views schema and the network catalogue. */
export type AnalyticsSource = { viewsSchema: string; networks: readonly Pick<Network, "id" | "shortName" | "name" | "chainId" | "type" | "isTestnet">[] };

type Client = { query: (text: string, values?: unknown[]) => Promise<unknown> };

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Points the analysts' schema (migration `0013_analytics_views`) at this deployment:
 * rewrites `analytics.networks` from the catalogue and the two functions that read the
 * indexer's views schema (`INDEXER_VIEWS_SCHEMA`, not known to a migration). Idempotent;
 * run after every migration. The functions are PL/pgSQL, so Postgres records no
 * dependency on the indexer's views (Ponder drops and recreates those), and a table the
 * indexer has not created yet reads as empty. They run with the service's rights
 * (`security definer`, fixed search path), so an analyst needs rights on `analytics` only.
 *
 * The match of indexed rows to payments is the EVM read model's
 * (`rails/evm/readModel/evidence.ts`): a Transfer of the payment's token to its receive
 * address on its chain; a `PaymentSettled` of its own intent from its contract; a
 * `SplitPaymentExecuted` with exactly the params the service issued for it — read
 * from the indexer's tables and the operator's replays (`replayed_*`, a row the indexer
 * also holds counted once). Solana's credits are the subscriber's `solana_credits`.
 */
export async function syncAnalytics(client: Client, source: AnalyticsSource): Promise<void> {
  const s = ident(source.viewsSchema);
  await client.query("begin");
  try {
    await client.query("delete from analytics.networks");
    for (const n of source.networks) {
      await client.query(
        "insert into analytics.networks (network_id, short_name, name, chain_id, type, is_testnet) values ($1, $2, $3, $4, $5, $6)",
        [n.id, n.shortName, n.name, n.chainId, n.type, n.isTestnet],
      );
    }
    await client.query(`
      create or replace function analytics.indexed_credits()
        returns table (payment_id uuid, source text, tx_hash text, block_number numeric, log_index integer, payer text, amount numeric, block_time timestamptz)
        language plpgsql stable security definer set search_path from current as $fn$
      #variable_conflict use_column
      begin
        begin
          return query ${transfers(`${s}.token_transfer`)} union all ${transfers("replayed_token_transfer", `${s}.token_transfer`)};
        exception when undefined_table then
          return query ${transfers("replayed_token_transfer")};
        end;
        begin
          return query ${settlements(`${s}.settlement_payment`)} union all ${settlements("replayed_settlement_payment", `${s}.settlement_payment`)};
        exception when undefined_table then
          return query ${settlements("replayed_settlement_payment")};
        end;
        begin
          return query ${splits(`${s}.split_payment`)} union all ${splits("replayed_split_payment", `${s}.split_payment`)};
        exception when undefined_table then
          return query ${splits("replayed_split_payment")};
        end;
        -- Solana: the subscriber's credits (a fork-dropped one is not evidence).
        return query
          select c.payment_id, c.source, c.signature, c.slot::numeric, c.account_index, null::text, c.amount::numeric, c.block_time
          from solana_credits c where c.removed_at is null;
      end $fn$`);
    await client.query(`
      create or replace function analytics.indexed_heads()
        returns table (chain_id text, block_number numeric)
        language plpgsql stable security definer set search_path from current as $fn$
      #variable_conflict use_column
      begin
        return query select h.chain_id, h.confirmed_slot::numeric from solana_ingest_heads h;
        begin
          return query
            select c.chain_id::text, substring(c.latest_checkpoint from 27 for 16)::numeric from ${s}."_ponder_checkpoint" c;
        exception when undefined_table then null;
        end;
      end $fn$`);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  }
}

/** EVM transfers from `table` matched to their payments; `unless`: a table whose rows win over these (same id). */
const transfers = (table: string, unless?: string) => `
  select p.id, 'transfer'::text, t.tx_hash::text, t.block_number::numeric, t.log_index, t."from"::text, t.amount::numeric,
         to_timestamp(t.timestamp::double precision)
  from ${table} t
  join payments p on t."to" = lower(p.receive_address) and p.chain_id = t.chain_id::text and t.token = lower(p.token_address)
  ${unless ? `where not exists (select 1 from ${unless} x where x.id = t.id)` : ""}`;

/** `PaymentSettled` events from `table` matched to the payment whose intent they settle. */
const settlements = (table: string, unless?: string) => `
  select p.id, 'settlement'::text, e.tx_hash::text, e.block_number::numeric, e.log_index, e.payer::text, e.amount::numeric,
         to_timestamp(e.timestamp::double precision)
  from ${table} e
  join payments p
    on p.id = (case when e.payment_id ~ '^0x0{32}[0-9a-f]{32}$' then substring(e.payment_id from 35 for 32)::uuid end)
    and p.chain_id = e.chain_id::text and e.contract = lower(p.contract_address)
    and e.token = lower(p.token_address) and e.merchant = lower(p.merchant_wallet)
  ${unless ? `where not exists (select 1 from ${unless} x where x.id = e.id)` : ""}`;

/** `SplitPaymentExecuted` events from `table` matched to the payment whose issued call they are (the read model's rule). */
const splits = (table: string, unless?: string) => `
  select p.id, 'settlement'::text, x.tx_hash::text, x.block_number::numeric, x.log_index, x.payer::text, x.received::numeric,
         to_timestamp(x.timestamp::double precision)
  from ${table} x
  join payments p
    on ${splitCallMatch}
  where x.received > 0 ${unless ? `and not exists (select 1 from ${unless} u where u.id = x.id)` : ""}`;
