CREATE TABLE "replayed_split_payment" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"key" text NOT NULL,
	"payment_id" text NOT NULL,
	"payer" text NOT NULL,
	"token" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"received" numeric(78, 0) NOT NULL,
	"recipient1" text NOT NULL,
	"recipient2" text NOT NULL,
	"recipient3" text NOT NULL,
	"recipient1_percentage" integer NOT NULL,
	"recipient2_percentage" integer NOT NULL,
	"recipient3_percentage" integer NOT NULL,
	"contract" text NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" numeric(78, 0) NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "contract_call" jsonb;--> statement-breakpoint
CREATE INDEX "replayed_split_payment_id_idx" ON "replayed_split_payment" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "replayed_split_payment_block_idx" ON "replayed_split_payment" USING btree ("chain_id","block_number");