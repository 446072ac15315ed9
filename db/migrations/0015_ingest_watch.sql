CREATE TABLE "ingest_watch" (
	"chain_id" text PRIMARY KEY NOT NULL,
	"caught_up_at" timestamp with time zone,
	"stalled_since" timestamp with time zone,
	"lag" numeric(78, 0),
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "payments_completing_block_idx" ON "payments" USING btree ("chain_id","completing_block") WHERE status in ('confirming', 'completed');