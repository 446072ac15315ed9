import { eq, sql } from "drizzle-orm";
import { preparedPer, type Db } from "./client.ts";
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
const walletsOf = preparedPer((db) =>
  db
    .select({ networkId: settlementWallets.networkId, address: settlementWallets.address })
    .from(settlementWallets)
    .where(eq(settlementWallets.merchantId, sql.placeholder("merchantId")))
    .prepare("settlement_wallets_of_merchant"),
);

export async function settlementWalletsByNetwork(db: Db, merchantId: string): Promise<Map<string, string>> {
  const rows = await walletsOf(db).execute({ merchantId });
  return new Map(rows.map((r) => [r.networkId, r.address]));
}
