ALTER TABLE "payments" ADD COLUMN "settlement_currency" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "settlement_rate" numeric;