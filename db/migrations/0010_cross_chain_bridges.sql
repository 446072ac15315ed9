CREATE TABLE "bridge_fills" (
	"chain_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"payment_id" uuid NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bridge_fills_chain_id_tx_hash_log_index_pk" PRIMARY KEY("chain_id","tx_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "bridge_requests" (
	"payment_id" uuid PRIMARY KEY NOT NULL,
	"adapter" text NOT NULL,
	"request_id" text NOT NULL,
	"origin_chain_id" text NOT NULL,
	"origin_token_symbol" text NOT NULL,
	"origin_token_address" text NOT NULL,
	"origin_token_decimals" integer NOT NULL,
	"deposit_address" text NOT NULL,
	"amount_to_send" numeric(78, 0) NOT NULL,
	"refund_to" text,
	"fees" jsonb,
	"expires_at" timestamp with time zone NOT NULL,
	"progress" text DEFAULT 'waiting' NOT NULL,
	"bridge_status" text DEFAULT 'awaiting_deposit' NOT NULL,
	"origin_tx_hashes" text[] DEFAULT '{}'::text[] NOT NULL,
	"destination_tx_hashes" text[] DEFAULT '{}'::text[] NOT NULL,
	"refund_tx_hashes" text[] DEFAULT '{}'::text[] NOT NULL,
	"deposit_amount" numeric(78, 0) DEFAULT 0 NOT NULL,
	"deposited_at" timestamp with time zone,
	"refunded_amount" numeric(78, 0) DEFAULT 0 NOT NULL,
	"refund_requested_at" timestamp with time zone,
	"fail_reason" text,
	"bridge_updated_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "local_bridge_deposits" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" uuid NOT NULL,
	"chain_id" text NOT NULL,
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"sender" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"block_number" numeric(78, 0) NOT NULL,
	"block_timestamp" timestamp with time zone NOT NULL,
	"disposition" text,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "local_bridge_factories" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"relayer" text NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "local_bridge_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"reference" text NOT NULL,
	"origin_chain_id" text NOT NULL,
	"origin_token" text NOT NULL,
	"destination_chain_id" text NOT NULL,
	"destination_token" text NOT NULL,
	"recipient" text NOT NULL,
	"deposit_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"amount_to_send" numeric(78, 0) NOT NULL,
	"fee" numeric(78, 0) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"refund_requested" boolean DEFAULT false NOT NULL,
	"scanned_block" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "local_bridge_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" uuid NOT NULL,
	"deposit_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"chain_id" text NOT NULL,
	"token" text NOT NULL,
	"to_address" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"status" text DEFAULT 'planned' NOT NULL,
	"from_address" text,
	"nonce" integer,
	"raw_tx" text,
	"tx_hash" text,
	"block_number" numeric(78, 0),
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "bridge_status" text;--> statement-breakpoint
ALTER TABLE "bridge_fills" ADD CONSTRAINT "bridge_fills_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bridge_requests" ADD CONSTRAINT "bridge_requests_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_bridge_deposits" ADD CONSTRAINT "local_bridge_deposits_request_id_local_bridge_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."local_bridge_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_bridge_transfers" ADD CONSTRAINT "local_bridge_transfers_request_id_local_bridge_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."local_bridge_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_bridge_transfers" ADD CONSTRAINT "local_bridge_transfers_deposit_id_local_bridge_deposits_id_fk" FOREIGN KEY ("deposit_id") REFERENCES "public"."local_bridge_deposits"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "bridge_fills_payment_idx" ON "bridge_fills" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bridge_requests_request_idx" ON "bridge_requests" USING btree ("adapter","request_id");--> statement-breakpoint
CREATE INDEX "bridge_requests_deposit_address_idx" ON "bridge_requests" USING btree (lower("deposit_address"));--> statement-breakpoint
CREATE INDEX "bridge_requests_open_idx" ON "bridge_requests" USING btree ("created_at") WHERE finished_at is null;--> statement-breakpoint
CREATE UNIQUE INDEX "local_bridge_deposits_log_idx" ON "local_bridge_deposits" USING btree ("chain_id","tx_hash","log_index");--> statement-breakpoint
CREATE INDEX "local_bridge_deposits_request_idx" ON "local_bridge_deposits" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "local_bridge_requests_active_idx" ON "local_bridge_requests" USING btree ("created_at") WHERE state in ('open', 'filling', 'refunding', 'failed');--> statement-breakpoint
CREATE UNIQUE INDEX "local_bridge_transfers_once_idx" ON "local_bridge_transfers" USING btree ("deposit_id","kind") WHERE status <> 'failed';--> statement-breakpoint
CREATE INDEX "local_bridge_transfers_request_idx" ON "local_bridge_transfers" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "local_bridge_transfers_nonce_idx" ON "local_bridge_transfers" USING btree ("chain_id","from_address","nonce") WHERE nonce is not null;