import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";

export type WatchedPayment = Pick<PaymentRow, "id" | "kind" | "receiveAddress" | "merchantWallet" | "tokenAddress">;

/**
 * The payments on a chain whose accounts the subscriber watches: every open one, and
 * closed ones for `afterCloseMs` (money sent late is recorded and owed back, and a
 * deposit address stays watched while it may still hold funds to sweep or refund).
 */
export async function paymentsToWatch(db: Db, chainId: string, afterCloseMs: number): Promise<WatchedPayment[]> {
  const rows = await queryRows<{ id: string; kind: "payment" | "deposit"; receive_address: string | null; merchant_wallet: string; token_address: string }>(db, sql`
    select id, kind, receive_address, merchant_wallet, token_address from payments p
    where chain_id = ${chainId} and receive_address is not null
      and (status in ('pending', 'confirming')
           or greatest(expires_at, coalesce(confirmed_at, expires_at), coalesce(closed_at, expires_at), updated_at) > now() - make_interval(secs => ${afterCloseMs / 1000})
           or exists (select 1 from transfers_out t where t.payment_id = p.id and t.status in ('requested', 'broadcast')))`);
  return rows.map((r) => ({ id: r.id, kind: r.kind, receiveAddress: r.receive_address, merchantWallet: r.merchant_wallet, tokenAddress: r.token_address }));
}
