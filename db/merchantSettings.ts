import { sql } from "drizzle-orm";
import { preparedPer, type Db } from "./client.ts";
import type { Mode } from "../domain/mode.ts";
import { merchants, returnOrigins, settlementWallets } from "./schema/index.ts";
import { walletInEffect } from "./settlementWallets.ts";

/** What creating a payment needs of its merchant: the settlement currency, wallets and return origins. */
export type MerchantSettings = {
  id: string;
  settlementCurrency: string;
  /** Settlement wallet address by network id. */
  wallets: Map<string, string>;
  /** Return origins (`db/schema/merchants.ts`) by mode. */
  returnOrigins: Record<Mode, string[]>;
};

const byIds = preparedPer((db) =>
  db
    .select({
      id: merchants.id,
      settlementCurrency: merchants.settlementCurrency,
      wallets: sql<Array<[string, string]> | null>`(select json_agg(json_build_array(${settlementWallets.networkId}, ${walletInEffect}))
        from ${settlementWallets} where ${settlementWallets.merchantId} = ${merchants.id})`,
      returnOrigins: sql<Array<[Mode, string]> | null>`(select json_agg(json_build_array(${returnOrigins.mode}, ${returnOrigins.origin}))
        from ${returnOrigins} where ${returnOrigins.merchantId} = ${merchants.id})`,
    })
    .from(merchants)
    .where(sql`${merchants.id} = any(${sql.placeholder("ids")}::uuid[])`)
    .prepare("merchant_settings_by_ids"),
);

/** The settings of these merchants (ids must be UUIDs), on one prepared query; a missing merchant has no row. */
export async function findMerchantSettings(db: Db, ids: readonly string[]): Promise<MerchantSettings[]> {
  const rows = await byIds(db).execute({ ids: [...ids] });
  return rows.map((r) => {
    const origins: Record<Mode, string[]> = { live: [], test: [] };
    for (const [mode, origin] of jsonArray(r.returnOrigins)) origins[mode].push(origin);
    return { id: r.id, settlementCurrency: r.settlementCurrency, wallets: new Map(jsonArray(r.wallets)), returnOrigins: origins };
  });
}

/** A `json_agg` column: the driver may hand it over parsed or as text; null when there were no rows. */
function jsonArray<T>(value: T[] | string | null): T[] {
  return typeof value === "string" ? JSON.parse(value) : (value ?? []);
}
