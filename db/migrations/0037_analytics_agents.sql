-- The agent that created a payment (`X-Agent-Id` / `agentId`) and who answers for it
-- (`agentOwner`, sent by the MCP server for agents): two columns added at the end, the others
-- as they were (0027).
create or replace view analytics.payments as
select
  p.id as payment_id,
  p.merchant_id,
  m.name as merchant_name,
  p.mode,
  p.is_test,
  p.kind,
  coalesce(n.short_name, p.chain_id) as network,
  p.chain_id,
  p.token_symbol as token,
  p.token_decimals as decimals,
  p.order_id,
  p.status,
  p.completed_via,
  p.amount,
  p.amount_received,
  p.excess_owed,
  p.late_amount,
  trim_scale(round(p.amount, p.token_decimals) / 10::numeric ^ p.token_decimals) as amount_decimal,
  trim_scale(round(p.amount_received, p.token_decimals) / 10::numeric ^ p.token_decimals) as received_decimal,
  -- On time = received before the payment's deadline; what came after is late (and owed back).
  (p.amount_received - p.late_amount) > 0 and (p.amount_received - p.late_amount) < p.amount as underpaid,
  (p.amount_received - p.late_amount) > p.amount as overpaid,
  p.late_amount > 0 as late,
  p.completing_tx_hash,
  p.completing_block,
  p.confirmations,
  p.created_at,
  p.detected_at,
  p.confirmed_at as completed_at,
  s.settled_at,
  p.expires_at,
  extract(epoch from p.confirmed_at - p.created_at)::numeric(12, 3) as seconds_to_completion,
  extract(epoch from s.settled_at - p.created_at)::numeric(12, 3) as seconds_to_settlement,
  p.agent_id,
  p.agent_owner
from payments p
join merchants m on m.id = p.merchant_id
left join analytics.networks n on n.network_id = p.network_id
left join lateral (
  -- Settled: the merchant holds the money. A deposit address is settled by its confirmed sweep;
  -- the settlement contract (and a Solana Pay transfer) pays the merchant in the payment's own
  -- transaction, a bridge's fill on the destination chain.
  select case when p.status <> 'completed' then null
              else coalesce(
                (select max(t.updated_at) from transfers_out t where t.payment_id = p.id and t.kind = 'sweep' and t.status = 'confirmed'),
                case when p.completed_via in ('settlement', 'bridge') then p.confirmed_at end)
         end as settled_at
) s on true;
