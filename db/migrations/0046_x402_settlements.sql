CREATE TABLE "x402_settlements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" uuid NOT NULL,
	"merchant_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"network" text NOT NULL,
	"chain_id" text NOT NULL,
	"asset" text NOT NULL,
	"payer" text NOT NULL,
	"pay_to" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"nonce" text NOT NULL,
	"payment_identifier" text,
	"x402_version" integer NOT NULL,
	"payload" jsonb NOT NULL,
	"requirements" jsonb NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"tx_hash" text,
	"block_number" bigint,
	"block_timestamp" timestamp with time zone,
	"log_index" integer,
	"gas_cost" numeric(78, 0),
	"error_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD CONSTRAINT "x402_settlements_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "x402_settlements" ADD CONSTRAINT "x402_settlements_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "x402_settlements_authorization_idx" ON "x402_settlements" USING btree ("chain_id",lower("asset"),lower("payer"),"nonce");--> statement-breakpoint
CREATE UNIQUE INDEX "x402_settlements_payment_identifier_idx" ON "x402_settlements" USING btree ("merchant_id","mode","payment_identifier") WHERE payment_identifier is not null;--> statement-breakpoint
CREATE INDEX "x402_settlements_payment_idx" ON "x402_settlements" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "x402_settlements_unfinished_idx" ON "x402_settlements" USING btree ("created_at") WHERE status in ('requested', 'submitted');--> statement-breakpoint
CREATE INDEX "x402_settlements_merchant_chain_created_idx" ON "x402_settlements" USING btree ("merchant_id","chain_id","created_at");