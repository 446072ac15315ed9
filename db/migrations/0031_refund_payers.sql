ALTER TABLE "bridge_requests" ADD COLUMN "deposit_senders" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "solana_credits" ADD COLUMN "payer" text;