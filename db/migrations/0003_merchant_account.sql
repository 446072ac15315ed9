CREATE TABLE "agent_policies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"agent_id" text NOT NULL,
	"max_per_payment" numeric,
	"daily_limit" numeric,
	"allowed_networks" text[],
	"allowed_tokens" text[],
	"expires_at" timestamp with time zone,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "simulated_credits" (
	"payment_id" uuid PRIMARY KEY NOT NULL,
	"tx_hash" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "fiat_amount" numeric;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "fiat_currency" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "exchange_rate" numeric;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "exchange_rate_source" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "exchange_rate_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agent_policies" ADD CONSTRAINT "agent_policies_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "simulated_credits" ADD CONSTRAINT "simulated_credits_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_policies_agent_idx" ON "agent_policies" USING btree ("merchant_id","mode","agent_id");--> statement-breakpoint
CREATE INDEX "payments_agent_created_idx" ON "payments" USING btree ("merchant_id","mode","agent_id","created_at") WHERE agent_id is not null;