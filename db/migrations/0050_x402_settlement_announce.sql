-- A settlement's outcome is announced as it is written (db/x402Settlements.ts X402_SETTLEMENTS_CHANNEL),
-- carrying what a settle answers with: the API's settle waiting for it answers at once, with no
-- second round trip of the writer's and no read of its own.
create or replace function announce_x402_settlement() returns trigger language plpgsql as $$
begin
  perform pg_notify('stablepay_x402_settlements', json_build_object('id', new.id, 'status', new.status, 'txHash', new.tx_hash, 'errorReason', new.error_reason)::text);
  return new;
end $$;
--> statement-breakpoint
create trigger x402_settlement_outcome after update of status on x402_settlements
  for each row when (new.status in ('settled', 'failed') and old.status is distinct from new.status)
  execute function announce_x402_settlement();
