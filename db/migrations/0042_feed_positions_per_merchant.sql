DROP INDEX "payment_events_feed_position_idx";--> statement-breakpoint
DROP INDEX "payment_events_merchant_feed_idx";--> statement-breakpoint
-- Positions counted per merchant and mode from now on: the events already placed are numbered
-- 1, 2, 3… in each merchant's feed of each mode, in the order they had (cursors are event ids: unchanged).
UPDATE "payment_events" e SET "feed_position" = r.rn
FROM (SELECT "id", row_number() OVER (PARTITION BY "merchant_id", "mode" ORDER BY "feed_position") AS rn
      FROM "payment_events" WHERE "feed_position" IS NOT NULL) r
WHERE e."id" = r."id";--> statement-breakpoint
CREATE UNIQUE INDEX "payment_events_merchant_feed_idx" ON "payment_events" USING btree ("merchant_id","mode","feed_position") WHERE feed_position is not null;
