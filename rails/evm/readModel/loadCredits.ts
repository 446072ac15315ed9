import type { PaymentRow } from "../../../db/schema/index.ts";
import { queryRows } from "../../../db/client.ts";
import type { RailContext, SourcedCredit } from "../../types.ts";
import { normalizeEvmAddress } from "../../../domain/evmAddress.ts";
import { evidenceQuery, type EvidenceRow } from "./evidence.ts";
import { indexedTables } from "./tables.ts";

/** Every indexed credit of these payments: settlement events of their intents and transfers to their receive addresses. */
export async function loadIndexedCredits(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, SourcedCredit[]>> {
  const result = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  if (payments.length === 0) return result;
  const schema = ctx.config.indexer.viewsSchema;
  const query = evidenceQuery(schema, await indexedTables(ctx.db, schema), { payments });
  for (const r of await queryRows<EvidenceRow>(ctx.db, query)) result.get(r.payment_id)?.push(creditOf(r));
  return result;
}

const creditOf = (r: EvidenceRow): SourcedCredit => ({
  amount: BigInt(r.amount),
  blockNumber: BigInt(r.block_number),
  logIndex: Number(r.log_index),
  timestamp: new Date(Number(r.ts) * 1000),
  txHash: r.tx_hash,
  source: r.source,
  payer: r.payer ? normalizeEvmAddress(r.payer) : null,
});
