import type { Config } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { SIMULATED_CREDIT_BLOCK, simulatedCreditsOf } from "../db/simulatedCredits.ts";
import { submissionsOf } from "../db/submissions.ts";
import { evidenceFor, type EvidenceSource, type RailContext, type SourcedCredit } from "../rails/index.ts";

export type Evidence = {
  credits: Map<string, SourcedCredit[]>;
  /** Money paid in time that is still on its way to the payment's chain, by payment: when it was paid. */
  inTransit: Map<string, Date>;
  /** Payments whose money on its way was given back or lost (a source's `gaveUp`), with why. */
  gaveUp: Map<string, string>;
  /** Payments whose evidence could not be read now (a source's `unreadable`): their stored answer stands. */
  unreadable: Set<string>;
  /** Per payment, how far evidence read from outside its chain is complete (a source's `evidenceThrough`). */
  evidenceThrough: Map<string, Date>;
};

/**
 * Every credit of these payments: what each one's evidence source has ingested from its chain,
 * plus transactions a client submitted that ingest has not reached yet (`heads`: the
 * ingested head per chain, read once by the caller), plus sandbox simulations; and what
 * each source says is still in transit (a bridge carrying money paid in time).
 */
export async function loadEvidence(ctx: RailContext, payments: readonly PaymentRow[], heads: ReadonlyMap<string, bigint>): Promise<Evidence> {
  const result = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  const inTransit = new Map<string, Date>();
  const gaveUp = new Map<string, string>();
  const unreadable = new Set<string>();
  const evidenceThrough = new Map<string, Date>();
  if (payments.length === 0) return { credits: result, inTransit, gaveUp, unreadable, evidenceThrough };
  const ids = payments.map((p) => p.id);
  const sources = [...bySource(ctx.config, payments)];
  // Every read goes out at once (pipelined on the connection).
  const [railCredits, railTransit, submitted, simulated] = await Promise.all([
    Promise.all(sources.map(([source, own]) => source.loadCredits(ctx, own, heads))),
    Promise.all(sources.map(([source, own]) => source.inTransit?.(ctx, own) ?? new Map<string, Date>())),
    submissionsOf(ctx.db, ids),
    simulatedCreditsOf(ctx.db, ids),
  ]);
  for (const credits of railCredits) {
    for (const [id, list] of credits) result.get(id)?.push(...list);
    for (const id of credits.unreadable ?? []) unreadable.add(id);
    for (const [id, through] of credits.evidenceThrough ?? []) evidenceThrough.set(id, through);
    for (const [id, why] of credits.gaveUp ?? []) gaveUp.set(id, why);
  }
  for (const transit of railTransit) for (const [id, since] of transit) inTransit.set(id, since);

  for (const r of submitted) {
    const head = heads.get(r.chain_id);
    const credits = result.get(r.payment_id)!;
    // Once ingest has passed the block, only ingested rows decide (a reorged tx must not live on).
    if (head !== undefined && BigInt(r.block_number) <= head) continue;
    // Ingest holds the transaction (in any block, under any log index: a reorg re-mined it lower): its rows decide.
    if (credits.some((c) => c.txHash.toLowerCase() === r.tx_hash.toLowerCase() && c.source !== "submission")) continue;
    credits.push({
      amount: BigInt(r.amount),
      blockNumber: BigInt(r.block_number),
      logIndex: Number(r.log_index),
      timestamp: new Date(Number(r.ts) * 1000),
      txHash: r.tx_hash,
      source: "submission",
      // Ingest names the payer once it reads the transaction; until then it is not known.
      payer: null,
    });
  }
  for (const r of simulated) {
    result.get(r.payment_id)!.push({
      amount: BigInt(r.amount),
      blockNumber: SIMULATED_CREDIT_BLOCK,
      logIndex: 0,
      timestamp: new Date(Math.round(Number(r.ts) * 1000)),
      txHash: r.tx_hash,
      source: "simulation",
      payer: null,
      final: true,
    });
  }
  return { credits: result, inTransit, gaveUp, unreadable, evidenceThrough };
}

/** Payments grouped by their evidence source (a payment whose network has none has only the service's own evidence). */
function bySource(config: Config, payments: readonly PaymentRow[]): Map<EvidenceSource, PaymentRow[]> {
  const networks = new Map(config.networks.map((n) => [n.chainId, n]));
  const groups = new Map<EvidenceSource, PaymentRow[]>();
  for (const p of payments) {
    const network = networks.get(p.chainId);
    const source = network && evidenceFor(network, p);
    if (!source) continue;
    const group = groups.get(source);
    if (group) group.push(p);
    else groups.set(source, [p]);
  }
  return groups;
}
