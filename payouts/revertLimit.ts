import type { Db } from "../db/client.ts";
import { recentlyReverted, type TransferOutKind } from "../db/transfersOut.ts";

/**
 * A payment whose sweeps (or refunds, or native-coin sweeps) reverted on chain this many
 * times within these hours gets no more of them for now: each try costs the operator gas,
 * and a transfer that reverted (a blacklisted address, a token paused) will most likely
 * revert again.
 */
export const REVERT_LIMIT = { times: 3, withinHours: 24 } as const;

/** How many of the payment's transfers of `kind` reverted within the window, once that is `REVERT_LIMIT.times` or more; null while fewer did. */
export async function revertLimitReached(db: Db, paymentId: string, kind: TransferOutKind): Promise<number | null> {
  const reverted = await recentlyReverted(db, paymentId, kind, REVERT_LIMIT.withinHours);
  return reverted >= REVERT_LIMIT.times ? reverted : null;
}
