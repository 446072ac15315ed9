CREATE TABLE "dispatch_cursors" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"window_digest" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_submissions" (
	"payment_id" uuid NOT NULL,
	"chain_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"block_timestamp" timestamp with time zone NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_submissions_payment_id_tx_hash_log_index_pk" PRIMARY KEY("payment_id","tx_hash","log_index")
);
--> statement-breakpoint
DROP INDEX "payments_open_idx";--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "kind" text DEFAULT 'payment' NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "amount_remaining" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "excess_owed" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "late_amount" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "contract_address" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "fee_amount" numeric(78, 0) DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "fee_recipient" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "intent_signature" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "intent_deadline" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "completing_tx_hash" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "completing_block" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "closed_status" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "closed_reason" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "reconciled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_submissions" ADD CONSTRAINT "payment_submissions_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "payments_receive_address_idx" ON "payments" USING btree ("chain_id",lower("receive_address"));--> statement-breakpoint
CREATE INDEX "payments_expiry_idx" ON "payments" USING btree ("expires_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "payments_open_idx" ON "payments" USING btree ("chain_id","status") WHERE status in ('pending', 'confirming');