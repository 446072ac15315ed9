ALTER TABLE "payment_events" ALTER COLUMN "payment_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "wallet_change_delay_hours" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "settlement_wallets" ADD COLUMN "pending_address" text;--> statement-breakpoint
ALTER TABLE "settlement_wallets" ADD COLUMN "pending_effective_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "settlement_wallets" ADD COLUMN "pending_requested_by" uuid;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
CREATE INDEX "settlement_wallets_pending_idx" ON "settlement_wallets" USING btree ("pending_effective_at") WHERE pending_effective_at is not null;