import type { Db } from "../../db/client.ts";
import { recordAccountEvent } from "../../db/accountEvents.ts";
import { recordAudit } from "../../db/dashboardAudit.ts";
import type { Mode } from "../../domain/mode.ts";
import type { DashboardContext } from "./guard.ts";

export type DangerousChange = {
  /** The audit action, also the event's `data.change` (e.g. `settlement_wallet.changed`). */
  action: string;
  details: Record<string, unknown>;
  /** The modes whose endpoints hear of it: the mode the change is in, or both for one of the team. */
  modes: readonly Mode[];
};

/**
 * Makes a dangerous change, writes it to the audit log and announces it to the merchant as an
 * `account.changed` event (what, who, when, from where), all in one transaction: the change,
 * its audit entry and its webhook exist together or not at all. `apply` returns undefined to
 * say nothing changed (then nothing is written); the announcement is built from what it returns.
 */
export async function changeAnnounced<T>(db: Db, dash: DashboardContext, apply: (tx: Db) => Promise<T | undefined>, describe: (result: T) => DangerousChange): Promise<T | undefined> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const result = await apply(tx);
    if (result === undefined) return undefined;
    const { action, details, modes } = describe(result);
    await recordAudit(tx, { merchantId: dash.merchantId, userId: dash.user.id, action, details, ip: dash.ip, userAgent: dash.userAgent });
    const data = {
      change: action,
      details,
      by: { userId: dash.user.id, email: dash.user.email, role: dash.user.role },
      at: new Date().toISOString(),
      from: { ip: dash.ip, userAgent: dash.userAgent?.slice(0, 300) ?? null },
    };
    for (const mode of modes) await recordAccountEvent(tx, { merchantId: dash.merchantId, mode, type: "account.changed", data });
    return result;
  });
}
