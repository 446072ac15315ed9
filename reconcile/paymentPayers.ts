import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { ingestFor, portsOf } from "../rails/index.ts";
import { loadEvidence } from "./loadEvidence.ts";

/**
 * Who paid a payment, from the evidence that counts now: each paying address (in its chain's
 * canonical form) with what it sent in total, smallest units; `unknown` is what credits whose
 * payer is not known sent (a submission ingest has not read yet, a simulation, a Solana
 * credit recorded before payers were kept).
 */
export type Payers = { byAddress: Map<string, bigint>; unknown: bigint };

/** The payers of `payment`, read from its evidence (the same credits reconcile counts). */
export async function paymentPayers(deps: { config: Config; db: Db; logger: Logger }, payment: PaymentRow): Promise<Payers> {
  const { network, chain } = portsOf(deps.config, payment);
  const ctx = { config: deps.config, db: deps.db, logger: deps.logger };
  const heads = (await ingestFor(network)?.indexedHeads(ctx)) ?? new Map<string, bigint>();
  const { credits } = await loadEvidence(ctx, [payment], heads);
  const payers: Payers = { byAddress: new Map(), unknown: 0n };
  for (const credit of credits.get(payment.id) ?? []) {
    const address = credit.payer === null ? null : chain.normalizeAddress(credit.payer);
    if (address === null) payers.unknown += credit.amount;
    else payers.byAddress.set(address, (payers.byAddress.get(address) ?? 0n) + credit.amount);
  }
  return payers;
}
