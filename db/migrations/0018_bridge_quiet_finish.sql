DROP INDEX "bridge_requests_open_idx";--> statement-breakpoint
ALTER TABLE "bridge_requests" ADD COLUMN "changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "bridge_requests_open_idx" ON "bridge_requests" USING btree ("checked_at") WHERE finished_at is null;