import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findPublicPayments } from "../../db/publicPayments.ts";
import { presentPublicPayment, type PublicPaymentView } from "../presenters/publicPayment.ts";

/** The checkout views of these payments (ids that do not exist are left out). */
export async function loadPublicViews(deps: { config: Config; db: Db }, ids: readonly string[]): Promise<Map<string, PublicPaymentView>> {
  const records = await findPublicPayments(deps.db, ids);
  const networkOf = (chainId: string) => deps.config.networks.find((n) => n.chainId === chainId);
  return new Map([...records].map(([id, record]) => [id, presentPublicPayment(record, networkOf(record.payment.chainId), networkOf, deps.config.refunds)]));
}

/** One payment's checkout view, or undefined when no payment has that id. */
export async function loadPublicView(deps: { config: Config; db: Db }, id: string): Promise<PublicPaymentView | undefined> {
  // Views are keyed by the id as Postgres writes it (lowercase); a caller may write it in capitals.
  const key = id.toLowerCase();
  return (await loadPublicViews(deps, [key])).get(key);
}
