CREATE TABLE "api_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"mode" text NOT NULL,
	"key_prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"secret_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_merchant_id_mode_scope_key_pk" PRIMARY KEY("merchant_id","mode","scope","key")
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"settlement_currency" text DEFAULT 'USD' NOT NULL,
	"is_naira_merchant" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"is_test" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"amount_received" numeric(78, 0) DEFAULT 0 NOT NULL,
	"currency" text NOT NULL,
	"token_symbol" text NOT NULL,
	"token_address" text NOT NULL,
	"token_decimals" integer NOT NULL,
	"network_id" uuid NOT NULL,
	"chain_id" text NOT NULL,
	"receive_address" text,
	"merchant_wallet" text NOT NULL,
	"order_id" text,
	"customer_email" text,
	"callback_url" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"agent_id" text,
	"confirmations" integer DEFAULT 0 NOT NULL,
	"detected_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settlement_wallets" (
	"merchant_id" uuid NOT NULL,
	"network_id" uuid NOT NULL,
	"address" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "settlement_wallets_merchant_id_network_id_pk" PRIMARY KEY("merchant_id","network_id")
);
--> statement-breakpoint
ALTER TABLE "api_credentials" ADD CONSTRAINT "api_credentials_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "settlement_wallets" ADD CONSTRAINT "settlement_wallets_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_credentials_key_hash_idx" ON "api_credentials" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_credentials_merchant_idx" ON "api_credentials" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "payments_merchant_created_idx" ON "payments" USING btree ("merchant_id","mode","created_at","id");--> statement-breakpoint
CREATE INDEX "payments_open_idx" ON "payments" USING btree ("status") WHERE status in ('pending', 'confirming');