import { numeric, timestamp } from "drizzle-orm/pg-core";

/** Token amounts: integers in the token's smallest unit, up to uint256. */
export const amount = (name: string) => numeric(name, { precision: 78, scale: 0, mode: "bigint" });
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
