/**
 * Leases: a role held by one process at a time among its replicas (the worker that exports
 * the shared-state metrics). A lease runs until `expiresAt`; its holder renews it well before,
 * and when the holder dies another process takes it once it has run out.
 */
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const leases = pgTable("leases", {
  name: text("name").primaryKey(),
  /** Who holds it: host, process id and a random tag of that process. */
  holder: text("holder").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});
