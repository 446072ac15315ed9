ALTER TABLE "transfers_out" ADD COLUMN "from_address" text;--> statement-breakpoint
ALTER TABLE "transfers_out" ADD COLUMN "replaced_tx_hashes" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "transfers_out_nonce_idx" ON "transfers_out" USING btree ("chain_id","from_address","nonce") WHERE nonce is not null;