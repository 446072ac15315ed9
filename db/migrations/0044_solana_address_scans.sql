CREATE TABLE "solana_address_scans" (
	"chain_id" text NOT NULL,
	"address" text NOT NULL,
	"payment_id" uuid,
	"evidence_through" timestamp with time zone,
	"listing_until" text,
	"listing_top_signature" text,
	"listing_top_slot" numeric(78, 0),
	"listing_before_signature" text,
	"listing_before_slot" numeric(78, 0),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "solana_address_scans_chain_id_address_pk" PRIMARY KEY("chain_id","address")
);
--> statement-breakpoint
CREATE INDEX "solana_address_scans_payment_idx" ON "solana_address_scans" USING btree ("payment_id");