import { and, eq, gt, isNotNull, sql } from "drizzle-orm";
import { preparedPer, queryRows, type Db } from "./client.ts";
import { settlementWallets } from "./schema/index.ts";

/**
 * The address in effect now: a delayed change's once its time has come, whether or not the
 * recheck has moved it into `address` yet, so what reads a wallet never sends money to the old
 * one after the change is due (nor to the new one before).
 */
export const walletInEffect = sql<string>`case when ${settlementWallets.pendingAddress} is not null and ${settlementWallets.pendingEffectiveAt} <= now() then ${settlementWallets.pendingAddress} else ${settlementWallets.address} end`;

/**
 * Sets (or replaces) the merchant's settlement wallet on one network, at once. The address must
 * already be validated. A delayed change waiting on that network is dropped: this one replaces it.
 */
export async function setSettlementWallet(db: Db, merchantId: string, networkId: string, address: string): Promise<void> {
  await db
    .insert(settlementWallets)
    .values({ merchantId, networkId, address })
    .onConflictDoUpdate({
      target: [settlementWallets.merchantId, settlementWallets.networkId],
      set: { address, pendingAddress: null, pendingEffectiveAt: null, pendingRequestedBy: null, updatedAt: sql`now()` },
    });
}

/**
 * Records a change of an existing wallet that takes effect `hours` from now (replacing one
 * already waiting). Returns when it takes effect, or undefined when the network has no wallet yet.
 */
export async function scheduleSettlementWallet(db: Db, merchantId: string, networkId: string, address: string, hours: number, requestedBy: string): Promise<Date | undefined> {
  const [row] = await db
    .update(settlementWallets)
    // A change already due but not yet made final becomes the address first, rather than being lost.
    .set({ address: walletInEffect, pendingAddress: address, pendingEffectiveAt: sql`now() + make_interval(hours => ${hours})`, pendingRequestedBy: requestedBy, updatedAt: sql`now()` })
    .where(and(eq(settlementWallets.merchantId, merchantId), eq(settlementWallets.networkId, networkId)))
    .returning({ effectiveAt: settlementWallets.pendingEffectiveAt });
  return row?.effectiveAt ?? undefined;
}

/** Drops the network's delayed change if it has not taken effect yet; returns the address it would have set. */
export async function cancelScheduledWallet(db: Db, merchantId: string, networkId: string): Promise<string | undefined> {
  const rows = await queryRows<{ address: string }>(
    db,
    sql`update settlement_wallets w set pending_address = null, pending_effective_at = null, pending_requested_by = null, updated_at = now()
        from (select merchant_id, network_id, pending_address from settlement_wallets
              where merchant_id = ${merchantId} and network_id = ${networkId} and pending_effective_at > now() for update) old
        where w.merchant_id = old.merchant_id and w.network_id = old.network_id
        returning old.pending_address as address`,
  );
  return rows[0]?.address;
}

export type ScheduledWallet = { address: string; effectiveAt: Date };

/** The merchant's delayed changes not yet in effect, by network id. */
export async function scheduledWallets(db: Db, merchantId: string): Promise<Map<string, ScheduledWallet>> {
  const rows = await db
    .select({ networkId: settlementWallets.networkId, address: settlementWallets.pendingAddress, effectiveAt: settlementWallets.pendingEffectiveAt })
    .from(settlementWallets)
    .where(and(eq(settlementWallets.merchantId, merchantId), isNotNull(settlementWallets.pendingAddress), gt(settlementWallets.pendingEffectiveAt, sql`now()`)));
  return new Map(rows.map((r) => [r.networkId, { address: r.address!, effectiveAt: r.effectiveAt! }]));
}

export type AppliedWallet = { merchantId: string; networkId: string; from: string; to: string; requestedBy: string | null };

/**
 * Moves due delayed changes into `address` (at most `limit`), with `tx`, and returns them.
 * Rows another session is moving are skipped; a row moved is no longer due, so running this
 * twice, or again after a crash, moves each change once.
 */
export async function applyDueWallets(tx: Db, limit = 100): Promise<AppliedWallet[]> {
  const rows = await queryRows<{ merchant_id: string; network_id: string; from: string; to: string; requested_by: string | null }>(
    tx,
    sql`update settlement_wallets w set address = old.pending_address, pending_address = null, pending_effective_at = null, pending_requested_by = null, updated_at = now()
        from (select merchant_id, network_id, address, pending_address, pending_requested_by from settlement_wallets
              where pending_effective_at <= now() and pending_address is not null order by pending_effective_at limit ${limit} for update skip locked) old
        where w.merchant_id = old.merchant_id and w.network_id = old.network_id
        returning w.merchant_id, w.network_id, old.address as "from", old.pending_address as "to", old.pending_requested_by as requested_by`,
  );
  return rows.map((r) => ({ merchantId: r.merchant_id, networkId: r.network_id, from: r.from, to: r.to, requestedBy: r.requested_by }));
}

/** The merchant's wallets keyed by network id (the address in effect now). */
const walletsOf = preparedPer((db) =>
  db
    .select({ networkId: settlementWallets.networkId, address: walletInEffect })
    .from(settlementWallets)
    .where(eq(settlementWallets.merchantId, sql.placeholder("merchantId")))
    .prepare("settlement_wallets_of_merchant"),
);

export async function settlementWalletsByNetwork(db: Db, merchantId: string): Promise<Map<string, string>> {
  const rows = await walletsOf(db).execute({ merchantId });
  return new Map(rows.map((r) => [r.networkId, r.address]));
}
