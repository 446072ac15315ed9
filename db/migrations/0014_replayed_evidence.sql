CREATE TABLE "replayed_settlement_payment" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"payment_id" text NOT NULL,
	"payer" text NOT NULL,
	"token" text NOT NULL,
	"merchant" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"fee" numeric(78, 0) NOT NULL,
	"contract" text NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"timestamp" numeric(78, 0) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "replayed_token_transfer" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"block_hash" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"token" text NOT NULL,
	"from" text NOT NULL,
	"to" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"timestamp" numeric(78, 0) NOT NULL
);
--> statement-breakpoint
CREATE INDEX "replayed_settlement_payment_id_idx" ON "replayed_settlement_payment" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "replayed_settlement_payment_block_idx" ON "replayed_settlement_payment" USING btree ("chain_id","block_number");--> statement-breakpoint
CREATE INDEX "replayed_token_transfer_to_idx" ON "replayed_token_transfer" USING btree ("to","chain_id");--> statement-breakpoint
CREATE INDEX "replayed_token_transfer_block_idx" ON "replayed_token_transfer" USING btree ("chain_id","block_number");