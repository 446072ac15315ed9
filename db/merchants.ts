import { eq, sql } from "drizzle-orm";
import { preparedPer, type Db } from "./client.ts";
import { merchants } from "./schema/index.ts";

export type Merchant = typeof merchants.$inferSelect;

export async function createMerchant(
  db: Db,
  input: { name: string; email?: string | null; settlementCurrency?: string; isNairaMerchant?: boolean },
): Promise<Merchant> {
  const [row] = await db
    .insert(merchants)
    .values({
      name: input.name,
      email: input.email ?? null,
      settlementCurrency: input.settlementCurrency ?? "USD",
      isNairaMerchant: input.isNairaMerchant ?? false,
    })
    .returning();
  return row!;
}

const merchantById = preparedPer((db) => db.select().from(merchants).where(eq(merchants.id, sql.placeholder("id"))).prepare("merchant_by_id"));

export async function findMerchant(db: Db, id: string): Promise<Merchant | undefined> {
  const [row] = await merchantById(db).execute({ id });
  return row;
}

export const listMerchants = (db: Db): Promise<Merchant[]> => db.select().from(merchants).orderBy(merchants.createdAt);

/** Sets how many hours a live wallet change made in the dashboard waits (0: none). */
export async function setWalletChangeDelay(db: Db, id: string, hours: number): Promise<void> {
  await db.update(merchants).set({ walletChangeDelayHours: hours }).where(eq(merchants.id, id));
}

/** Sets the currency the merchant's statistics and settlement rates are in (checked by the caller). */
export async function setSettlementCurrency(db: Db, id: string, currency: string): Promise<void> {
  await db.update(merchants).set({ settlementCurrency: currency }).where(eq(merchants.id, id));
}
