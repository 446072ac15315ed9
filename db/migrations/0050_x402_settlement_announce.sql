-- A settlement's outcome is announced as it is written (db/x402Settlements.ts X402_SETTLEMENTS_CHANNEL):
-- the API's settle waiting for it reads it at once, with no second round trip of the writer's.
create or replace function announce_x402_settlement() returns trigger language plpgsql as $$
begin
  perform pg_notify('stablepay_x402_settlements', new.id::text);
  return new;
end $$;
--> statement-breakpoint
create trigger x402_settlement_outcome after update of status on x402_settlements
  for each row when (new.status in ('settled', 'failed') and old.status is distinct from new.status)
  execute function announce_x402_settlement();
