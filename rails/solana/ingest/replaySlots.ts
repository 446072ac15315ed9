import type { ConfirmedSignatureInfo } from "@solana/web3.js";
import { sql } from "drizzle-orm";
import type { Network } from "../../../config/index.ts";
import { queryRows } from "../../../db/client.ts";
import type { RailContext, ReplayOptions, ReplayResult } from "../../types.ts";
import { INDEXED_CHANNEL } from "../../types.ts";
import { solanaConnection } from "../connection.ts";
import { secondsPerSlot } from "../secondsPerSlot.ts";
import { paymentsToWatch } from "../readModel/watchList.ts";
import { watchOf } from "../watchedAccount.ts";
import { creditOf, isStamped, markFinalized, servedBySignature, stampBlockTimes, type UnstampedCredit } from "./readCredits.ts";
import { signaturePages } from "./scanAddress.ts";
import { recordCredits, type FoundCredit } from "./recordCredits.ts";

const PAGE = 1000;
/** Transactions asked in one JSON-RPC batch: providers refuse large batches (a spammed address lists thousands). */
const CHUNK = 100;
/** Watch every payment the chain ever had, whatever its age: a replay looks for what was missed. */
const FOREVER_MS = 100 * 365 * 24 * 3_600_000;

/**
 * The Solana replay: slots `from`..`to` (clamped to the finalized slot) read again — for
 * every payment's watched address (a deposit's token account, a Solana Pay reference),
 * its signatures in that slot range, their transactions, and the credit each carries
 * (the watched account's balance rise) — recorded as the subscriber records them
 * (unique on signature and account, so a replay twice adds nothing). Address cursors are
 * not moved: the subscriber's own scan goes on from where it was. Transactions are read
 * 100 to a batch; one the node lists but does not serve is returned in `unread`.
 */
export async function replaySlots(
  ctx: RailContext,
  network: Network,
  range: { from: bigint; to: bigint },
  options: ReplayOptions,
  limits: { pageSize?: number; chunkSize?: number } = {},
): Promise<ReplayResult> {
  const connection = solanaConnection(network, "finalized", ctx.config.rpcTimeoutMs * 5);
  const final = BigInt(await connection.getSlot("finalized"));
  const from = range.from;
  const to = range.to < final ? range.to : final;
  // Part of the range is not final: how fast the chain makes slots tells the caller when it will be.
  const pace = to < range.to ? { secondsPerBlock: await secondsPerSlot(connection, final) } : {};
  if (to < from) return { from, to, found: 0, added: 0, known: 0, paymentIds: [], unread: [], finalHead: final, ...pace };

  const watches = (await paymentsToWatch(ctx.db, network.chainId, { afterCloseMs: FOREVER_MS, everyPollAfterCloseMs: FOREVER_MS })).map((p) => watchOf(network, p));
  const read: UnstampedCredit[] = [];
  const unread: string[] = [];
  let done = 0;
  for (const watch of watches) {
    const inRange: ConfirmedSignatureInfo[] = [];
    // From a node at the finalized slot read at least (one behind it lists fewer).
    for await (const page of signaturePages(connection, watch.scan, { limit: limits.pageSize ?? PAGE, minContextSlot: Number(final) }, "finalized")) {
      inRange.push(...page.filter((s) => s.err === null && BigInt(s.slot) >= from && BigInt(s.slot) <= to));
      // Newest first: once a page reaches below the range, nothing older can be in it.
      if (page.length > 0 && BigInt(page.at(-1)!.slot) < from) break;
    }
    const chunkSize = limits.chunkSize ?? CHUNK;
    for (let i = 0; i < inRange.length; i += chunkSize) {
      const chunk = inRange.slice(i, i + chunkSize);
      const wanted = chunk.map((s) => s.signature);
      const transactions = servedBySignature(wanted, await connection.getParsedTransactions(wanted, { maxSupportedTransactionVersion: 0, commitment: "finalized" }));
      chunk.forEach((info) => {
        const transaction = transactions.get(info.signature);
        // Listed but not served (a node without that history) or without its balances: reported, never taken as "no credit".
        if (!transaction?.meta) return void unread.push(info.signature);
        const credit = creditOf(watch, info.signature, transaction, info.blockTime);
        if (credit) read.push(credit);
      });
    }
    options.onProgress?.((BigInt(++done) * (to - from + 1n)) / BigInt(watches.length), to - from + 1n);
  }
  // A credit whose block time the node cannot tell is reported unread too: a time made up here could turn it late.
  await stampBlockTimes(connection, read);
  const found = read.filter(isStamped);
  unread.push(...read.filter((c) => !isStamped(c)).map((c) => c.signature));
  await markFinalized(connection, found);

  const known = await knownCredits(ctx, network.chainId, found);
  const fresh = found.filter((c) => !known.has(`${c.signature}:${c.account}`));
  const added = options.dryRun || fresh.length === 0 ? fresh.length : (await recordCredits(ctx.db, { chainId: network.chainId, channel: INDEXED_CHANNEL, foundBy: "replay", credits: fresh })).inserted;
  return { from, to, found: found.length, added, known: found.length - fresh.length, paymentIds: [...new Set(found.map((c) => c.paymentId))], unread, finalHead: final, ...pace };
}

async function knownCredits(ctx: RailContext, chainId: string, credits: FoundCredit[]): Promise<Set<string>> {
  if (credits.length === 0) return new Set();
  const rows = await queryRows<{ key: string }>(ctx.db, sql`
    select signature || ':' || account as key from solana_credits
    where chain_id = ${chainId} and signature = any(${sql.param(credits.map((c) => c.signature))}::text[]) and removed_at is null`);
  return new Set(rows.map((r) => r.key));
}
