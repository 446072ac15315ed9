ALTER TABLE "payments" ADD COLUMN "swept_at" timestamp with time zone;--> statement-breakpoint
-- Payments already swept whole (by their confirmed sweeps) are marked: only the others are owed.
UPDATE "payments" p SET "swept_at" = now() WHERE p.status = 'completed' AND p.completed_via = 'transfer'
  AND p.amount <= (SELECT coalesce(sum(t.amount), 0) FROM "transfers_out" t WHERE t.payment_id = p.id AND t.kind = 'sweep' AND t.status = 'confirmed');--> statement-breakpoint
CREATE INDEX "payments_sweep_owed_idx" ON "payments" USING btree ("id") WHERE status = 'completed' and completed_via = 'transfer' and swept_at is null;--> statement-breakpoint
CREATE INDEX "transfers_out_confirmed_block_idx" ON "transfers_out" USING btree ("chain_id","block_number") WHERE status = 'confirmed';