import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/** Every deposit payment on `chainId`, oldest first: its id, deposit address and merchant wallet (what `cli recover` needs of it). */
export async function depositPaymentsOn(db: Db, chainId: string): Promise<Array<{ id: string; receiveAddress: string; merchantWallet: string }>> {
  const rows = await queryRows<{ id: string; receive_address: string; merchant_wallet: string }>(
    db,
    sql`select id, receive_address, merchant_wallet from payments
        where chain_id = ${chainId} and kind = 'deposit' and receive_address is not null order by created_at`,
  );
  return rows.map((r) => ({ id: r.id, receiveAddress: r.receive_address, merchantWallet: r.merchant_wallet }));
}
