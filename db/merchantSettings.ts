import { sql } from "drizzle-orm";
import { preparedPer, type Db } from "./client.ts";
import { merchants, settlementWallets } from "./schema/index.ts";

/** What creating a payment needs of its merchant: the settlement currency and wallets. */
export type MerchantSettings = {
  id: string;
  settlementCurrency: string;
  /** Settlement wallet address by network id. */
  wallets: Map<string, string>;
};

const byIds = preparedPer((db) =>
  db
    .select({
      id: merchants.id,
      settlementCurrency: merchants.settlementCurrency,
      wallets: sql<Array<[string, string]> | null>`(select json_agg(json_build_array(${settlementWallets.networkId}, ${settlementWallets.address}))
        from ${settlementWallets} where ${settlementWallets.merchantId} = ${merchants.id})`,
    })
    .from(merchants)
    .where(sql`${merchants.id} = any(${sql.placeholder("ids")}::uuid[])`)
    .prepare("merchant_settings_by_ids"),
);

/** The settings of these merchants (ids must be UUIDs), on one prepared query; a missing merchant has no row. */
export async function findMerchantSettings(db: Db, ids: readonly string[]): Promise<MerchantSettings[]> {
  const rows = await byIds(db).execute({ ids: [...ids] });
  return rows.map((r) => ({ id: r.id, settlementCurrency: r.settlementCurrency, wallets: new Map(typeof r.wallets === "string" ? JSON.parse(r.wallets) : (r.wallets ?? [])) }));
}
