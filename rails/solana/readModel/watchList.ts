import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";

export type WatchedPayment = Pick<PaymentRow, "id" | "kind" | "receiveAddress" | "merchantWallet" | "tokenAddress"> & {
  /** Open, closed within the every-poll window, or with money on its way out: scanned on every poll. False: late money only. */
  recent: boolean;
};

/**
 * The payments on a chain whose accounts the subscriber watches: every open one, and
 * closed ones for `afterCloseMs` (money sent late is recorded and owed back, and a
 * deposit address stays watched while it may still hold funds to sweep or refund).
 * `recent` marks those to scan on every poll: open, closed within `everyPollAfterCloseMs`,
 * or with a sweep or refund under way; the others are only watched for late money.
 */
export async function paymentsToWatch(db: Db, chainId: string, windows: { afterCloseMs: number; everyPollAfterCloseMs: number }): Promise<WatchedPayment[]> {
  const rows = await queryRows<{ id: string; kind: "payment" | "deposit"; receive_address: string | null; merchant_wallet: string; token_address: string; recent: boolean }>(db, sql`
    select id, kind, receive_address, merchant_wallet, token_address,
      open or closed_for < make_interval(secs => ${windows.everyPollAfterCloseMs / 1000}) or moving_out as recent
    from (
      select p.id, p.kind, p.receive_address, p.merchant_wallet, p.token_address,
        p.status in ('pending', 'confirming') as open,
        now() - greatest(p.expires_at, coalesce(p.confirmed_at, p.expires_at), coalesce(p.closed_at, p.expires_at), p.updated_at) as closed_for,
        exists (select 1 from transfers_out t where t.payment_id = p.id and t.status in ('requested', 'broadcast')) as moving_out
      from payments p
      where p.chain_id = ${chainId} and p.receive_address is not null
    ) w
    where open or closed_for < make_interval(secs => ${windows.afterCloseMs / 1000}) or moving_out`);
  return rows.map((r) => ({ id: r.id, kind: r.kind, receiveAddress: r.receive_address, merchantWallet: r.merchant_wallet, tokenAddress: r.token_address, recent: r.recent }));
}
