import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findPublicPayments } from "../../db/publicPayments.ts";
import { presentPublicPayment, type PublicPaymentView } from "../presenters/publicPayment.ts";
import type { NetworkDelays } from "./networkDelays.ts";

type ViewDeps = { config: Config; db: Db; networkDelays: NetworkDelays };

/** The checkout views of these payments (ids that do not exist are left out). */
export async function loadPublicViews(deps: ViewDeps, ids: readonly string[]): Promise<Map<string, PublicPaymentView>> {
  const [records, delayed] = await Promise.all([findPublicPayments(deps.db, ids), deps.networkDelays.delayedChains()]);
  const networkOf = (chainId: string) => deps.config.networks.find((n) => n.chainId === chainId);
  return new Map(
    [...records].map(([id, record]) => [
      id,
      presentPublicPayment(record, networkOf(record.payment.chainId), networkOf, deps.config.refunds, delayed.has(record.payment.chainId)),
    ]),
  );
}

/** One payment's checkout view, or undefined when no payment has that id. */
export async function loadPublicView(deps: ViewDeps, id: string): Promise<PublicPaymentView | undefined> {
  // Views are keyed by the id as Postgres writes it (lowercase); a caller may write it in capitals.
  const key = id.toLowerCase();
  return (await loadPublicViews(deps, [key])).get(key);
}
