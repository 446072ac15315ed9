import type { Job } from "bullmq";
import { unfinishedBridgeRequests } from "../db/bridgeRequests.ts";
import { dispatchCursorBlocks } from "../db/dispatchCursors.ts";
import { paymentsToRecheck } from "../db/paymentsToRevisit.ts";
import { confirmedTransfersAbove, paymentsToSweep, unfinishedTransfersOut } from "../db/transfersOut.ts";
import { unfinishedX402Settlements } from "../db/x402Settlements.ts";
import { applyDueWalletChanges, recheckTransfer } from "../payouts/index.ts";
import { chainFor, type RailContext } from "../rails/index.ts";
import { watchIngest } from "../reconcile/index.ts";
import type { Prompts } from "../domain/prompts.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `recheck`, the periodic safety net behind dispatch and the delayed `expire` jobs:
 * watches each chain's ingest against its head (`watchIngest`), re-reconciles every open payment, pending ones past expiry (a lost delayed job), and
 * every open or lately ended one once after Redis lost its prompts (restarted empty), and
 * completed ones inside their finality window (a reorg deeper than the confirmations
 * seen); re-prompts sweeps and refunds whose job vanished (Redis flushed, worker killed);
 * re-reads every unfinished bridge request (a `bridge` job's chain of reads lost); and prompts
 * again x402 settlements neither settled nor failed a while after they were asked for; and
 * moves delayed settlement wallet changes that are due into effect for good.
 */
/** How long an x402 settlement's own prompt has before the recheck gives it again. */
const X402_PROMPT_GRACE_MS = 60_000;

export const recheck = (ctx: RailContext, prompts: Prompts) => async (job: Job<JobPayloads["recheck"]>) => {
  const { db, config } = ctx;
  // First how far each chain's ingest got (holds or extends expiry), then what to reconcile.
  await watchIngest(ctx).catch((error: Error) => ctx.logger.error({ err: error }, "watching ingest failed"));
  // Each chain's final block, from its node (null where it cannot be read now).
  const finality = await Promise.all(
    config.networks.map(async (n) => {
      const chain = n.enabled ? chainFor(n) : undefined;
      const finalized = chain ? await chain.finalizedHead(n, config.rpcTimeoutMs).catch(() => null) : null;
      return { chainId: n.chainId, blocks: n.requiredConfirmations, finalized };
    }),
  );
  // Redis restarted empty or flushed: a payment paid just before it lost its first prompt shows
  // no money yet, so nothing below would take it before its expiry. Every open one goes once.
  // Read before the store: dispatch notes its prompts there before its cursor here moves.
  const cursors = await dispatchCursorBlocks(db);
  const lost = await prompts.mayHaveLost(cursors);
  const ids = await paymentsToRecheck(db, finality, { everyOpen: lost });
  await prompts.reconcile(ids, `recheck-${job.id ?? Date.now()}`);
  if (lost) await prompts.markKept(cursors);
  // Sweeps and refunds confirmed in blocks not yet final: one a reorg removed goes out again.
  const known = finality.filter((f): f is typeof f & { finalized: bigint } => f.finalized !== null);
  for (const row of await confirmedTransfersAbove(db, known)) {
    // One row's chain unreadable must not stop the safety net for everything after it.
    await recheckTransfer(ctx, row).catch((error: Error) => ctx.logger.error({ err: error, transfer: row.id }, "re-checking a confirmed sweep/refund failed; the next recheck tries again"));
  }
  // Sweeps owed but not done, and sweeps/refunds a crash left half way: drive them on.
  const unfinished = await unfinishedTransfersOut(db);
  // A native-coin sweep is resumed by its payment's sweep job, as a token sweep is.
  const sweeps = [...(await paymentsToSweep(db)), ...unfinished.filter((t) => t.kind !== "refund").map((t) => t.paymentId)];
  await prompts.sweep(sweeps);
  for (const t of unfinished.filter((t) => t.kind === "refund")) await prompts.refund(t.id);
  const bridges = await unfinishedBridgeRequests(db);
  await prompts.bridge(bridges);
  // A settle's own prompt normally runs within seconds; one still open after a minute lost it.
  const settlements = await unfinishedX402Settlements(db, new Date(Date.now() - X402_PROMPT_GRACE_MS));
  for (const id of settlements) await prompts.x402Settle(id);
  const wallets = await applyDueWalletChanges(ctx).catch((error: Error) => {
    ctx.logger.error({ err: error }, "applying due settlement wallet changes failed; the next recheck tries again");
    return 0;
  });
  return { reconcile: ids.length, lost, sweeps: sweeps.length, bridges: bridges.length, x402: settlements.length, wallets };
};
