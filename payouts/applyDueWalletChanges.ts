import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { recordAccountEvent } from "../db/accountEvents.ts";
import { recordAudit } from "../db/dashboardAudit.ts";
import { applyDueWallets } from "../db/settlementWallets.ts";

/**
 * Moves delayed settlement wallet changes whose time has come into effect for good, each with
 * its audit entry and `account.changed` event in the same transaction (run by the recheck).
 * Reads already used the new address from its time on (`walletInEffect`); this records that it
 * happened. Idempotent: a change moved is no longer due. Returns how many were moved.
 */
export async function applyDueWalletChanges(deps: { db: Db; config: Config }): Promise<number> {
  const { db, config } = deps;
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const applied = await applyDueWallets(tx);
    for (const change of applied) {
      const network = config.networks.find((n) => n.id === change.networkId);
      const details = { network: network?.shortName ?? change.networkId, from: change.from, to: change.to, requestedBy: change.requestedBy };
      await recordAudit(tx, { merchantId: change.merchantId, userId: null, action: "settlement_wallet.change_applied", details, ip: null, userAgent: null });
      // Delays apply to live mode only: the change is live mode's.
      await recordAccountEvent(tx, {
        merchantId: change.merchantId,
        mode: network?.isTestnet ? "test" : "live",
        type: "account.changed",
        data: { change: "settlement_wallet.change_applied", details, by: null, at: new Date().toISOString(), from: null },
      });
    }
    return applied.length;
  });
}
