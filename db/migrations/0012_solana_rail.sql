CREATE TABLE "solana_account_cursors" (
	"chain_id" text NOT NULL,
	"address" text NOT NULL,
	"last_signature" text NOT NULL,
	"last_slot" numeric(78, 0) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_account_cursors_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
CREATE TABLE "solana_credits" (
	"chain_id" text NOT NULL,
	"signature" text NOT NULL,
	"account" text NOT NULL,
	"payment_id" uuid NOT NULL,
	"source" text NOT NULL,
	"owner" text NOT NULL,
	"mint" text NOT NULL,
	"token_program" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"slot" numeric(78, 0) NOT NULL,
	"block_time" timestamp with time zone NOT NULL,
	"account_index" integer NOT NULL,
	"finalized" boolean DEFAULT false NOT NULL,
	"removed_at" timestamp with time zone,
	"found_by" text NOT NULL,
	"seq" bigserial NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_credits_chain_id_signature_account_pk" PRIMARY KEY("chain_id","signature","account")
);
--> statement-breakpoint
CREATE TABLE "solana_deposit_seeds" (
	"id" text PRIMARY KEY NOT NULL,
	"sealed_seed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "solana_ingest_heads" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"confirmed_slot" numeric(78, 0) NOT NULL,
	"finalized_slot" numeric(78, 0) NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transfers_out" ADD COLUMN "blockhash" text;--> statement-breakpoint
ALTER TABLE "transfers_out" ADD COLUMN "last_valid_block_height" numeric(78, 0);--> statement-breakpoint
ALTER TABLE "solana_credits" ADD CONSTRAINT "solana_credits_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "public"."payments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "solana_credits_payment_idx" ON "solana_credits" USING btree ("payment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "solana_credits_seq_idx" ON "solana_credits" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "solana_credits_unfinalized_idx" ON "solana_credits" USING btree ("chain_id","slot") WHERE not finalized and removed_at is null;