ALTER TABLE "payments" ADD COLUMN "success_url" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "cancel_url" text;