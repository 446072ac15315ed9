import { eq, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { settlementWallets } from "./schema/index.ts";

/** Sets (or replaces) the merchant's settlement wallet on one network. The address must already be validated. */
export async function setSettlementWallet(db: Db, merchantId: string, networkId: string, address: string): Promise<void> {
  await db
    .insert(settlementWallets)
    .values({ merchantId, networkId, address })
    .onConflictDoUpdate({
      target: [settlementWallets.merchantId, settlementWallets.networkId],
      set: { address, updatedAt: sql`now()` },
    });
}

/** The merchant's wallets keyed by network id. */
export async function settlementWalletsByNetwork(db: Db, merchantId: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ networkId: settlementWallets.networkId, address: settlementWallets.address })
    .from(settlementWallets)
    .where(eq(settlementWallets.merchantId, merchantId));
  return new Map(rows.map((r) => [r.networkId, r.address]));
}
