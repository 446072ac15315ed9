import { sql } from "drizzle-orm";
import type { Network } from "../../../config/index.ts";
import { queryRows } from "../../../db/client.ts";
import type { EvidenceCursor, NewEvidence, RailContext } from "../../types.ts";

/**
 * Payments whose Solana credits were inserted or changed (a fork removed one) since
 * the cursor. Credits carry a sequence advanced on every insert and change, kept in the
 * cursor's digest field; the block is the head, as dispatch stores it.
 */
export async function newSolanaEvidence(ctx: RailContext, network: Network, cursor: EvidenceCursor | null, head: bigint): Promise<NewEvidence> {
  const after = cursor?.windowDigest && /^\d+$/.test(cursor.windowDigest) ? cursor.windowDigest : "0";
  const rows = await queryRows<{ payment_id: string; seq: string }>(ctx.db, sql`
    select payment_id, max(seq)::text as seq from solana_credits
    where chain_id = ${network.chainId} and seq > ${after}::bigint group by payment_id`);
  const last = rows.reduce((max, r) => (BigInt(r.seq) > max ? BigInt(r.seq) : max), BigInt(after));
  return { paymentIds: rows.map((r) => r.payment_id), cursor: { block: head, windowDigest: last.toString() } };
}
