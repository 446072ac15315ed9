DROP INDEX "payment_events_feed_position_idx";--> statement-breakpoint
DROP INDEX "payment_events_merchant_feed_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "payment_events_feed_position_idx" ON "payment_events" USING btree ("feed_position") WHERE feed_position is not null;--> statement-breakpoint
CREATE INDEX "payment_events_merchant_feed_idx" ON "payment_events" USING btree ("merchant_id","mode","feed_position") WHERE feed_position is not null;