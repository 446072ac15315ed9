ALTER TABLE "bridge_requests" ADD COLUMN "seen_through" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "local_bridge_requests" ADD COLUMN "scanned_through" timestamp with time zone;