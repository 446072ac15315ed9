CREATE TABLE "solana_deposit_addresses" (
	"seed_id" text NOT NULL,
	"index" integer NOT NULL,
	"address" text NOT NULL,
	"payment_id" uuid,
	"claimed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_deposit_addresses_seed_id_index_pk" PRIMARY KEY("seed_id","index")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "solana_deposit_addresses_address_idx" ON "solana_deposit_addresses" USING btree ("address");--> statement-breakpoint
CREATE UNIQUE INDEX "solana_deposit_addresses_payment_idx" ON "solana_deposit_addresses" USING btree ("payment_id");--> statement-breakpoint
CREATE INDEX "solana_deposit_addresses_free_idx" ON "solana_deposit_addresses" USING btree ("index") WHERE payment_id is null;