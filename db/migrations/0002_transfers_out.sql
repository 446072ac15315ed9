CREATE TABLE "transfers_out" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"chain_id" text NOT NULL,
	"token_address" text NOT NULL,
	"to_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"reason" text,
	"nonce" integer,
	"raw_tx" text,
	"tx_hash" text,
	"block_number" numeric(78, 0),
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "completed_via" text;--> statement-breakpoint
ALTER TABLE "transfers_out" ADD CONSTRAINT "transfers_out_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "transfers_out_payment_idx" ON "transfers_out" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "transfers_out_one_open_idx" ON "transfers_out" USING btree ("payment_id") WHERE status in ('requested', 'broadcast');