import { findPayment } from "../../db/payments.ts";
import { ingestFor } from "../../rails/index.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import type { CliContext } from "./context.ts";
import { CommandFailedError, required, UsageError, type Flags } from "./flags.ts";
import { progressBar } from "./progressBar.ts";

/** Payments reconciled per transaction (what a reconcile job takes). */
const BATCH = 250;

const blockFlag = (flags: Flags, names: string[]): bigint => {
  const given = names.filter((n) => flags[n] !== undefined);
  if (given.length === 0) throw new UsageError(`--${names[0]} is required`);
  if (given.length > 1) throw new UsageError(`give --${given[0]} or --${given[1]}, not both`);
  const text = required(flags, given[0]!);
  if (!/^\d{1,20}$/.test(text)) throw new UsageError(`--${given[0]} must be a block (or slot) number`);
  return BigInt(text);
};

/** When the range up to `to` will be final, from how far the final head is below it and the chain's recent pace. */
function finalIn(result: { finalHead: bigint; secondsPerBlock?: number | null }, to: bigint, unit: string): string {
  const behind = to - result.finalHead;
  const pace = result.secondsPerBlock;
  if (pace === undefined || pace === null) return `all final once ${behind} ${unit} more are (the chain's block time is not known yet)`;
  return `all final in about ${duration(Number(behind) * pace)}: ${behind} ${unit} more at ~${pace.toFixed(pace < 10 ? 2 : 0)} s each`;
}

/** Seconds, roughly, in the largest unit that fits. */
function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 5_400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3_600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

/**
 * `replay --network N --from A --to B [--dry-run]` (Solana: `--from-slot/--to-slot` too):
 * reads that range of the chain again through its rail, records the evidence ingest had
 * missed, and reconciles every payment the range touches. Safe while the service runs
 * and to interrupt and run again: recording is idempotent and reconciling is too. Only
 * final blocks are read: the output names the range read and when the rest will be final;
 * a range none of which is final fails (exit 1).
 */
export async function replay({ db, config, logger }: CliContext, flags: Flags): Promise<string> {
  const name = required(flags, "network");
  const network = config.networks.find((n) => n.shortName === name);
  if (!network) throw new UsageError(`--network: unknown network "${name}" (one of: ${config.networks.map((n) => n.shortName).join(", ")})`);
  const ingest = ingestFor(network);
  if (!network.enabled || !ingest) throw new UsageError(`--network: ${network.name} is not enabled here (no RPC URL configured)`);
  const from = blockFlag(flags, ["from", "from-slot"]);
  const to = blockFlag(flags, ["to", "to-slot"]);
  if (to < from) throw new UsageError("--to must not be below --from");
  const dryRun = flags["dry-run"] === true;

  const { unit, follower } = ingest.ingestTerms;
  const bar = progressBar(unit);
  const result = await ingest.replay({ db, config, logger }, network, { from, to }, { dryRun, onProgress: bar.update });
  const read = result.to >= result.from ? result.to - result.from + 1n : 0n;
  // Nothing of the range is final: nothing was read, which a script must notice (exit 1).
  if (read === 0n) {
    throw new CommandFailedError(
      `Nothing replayed: none of ${network.name} ${unit} ${from}–${to} is final yet (the final head is ${result.finalHead}); ${follower} follows them; ${finalIn(result, to, unit)}.`,
    );
  }
  bar.done(read, read);

  const lines = [
    `${dryRun ? "Dry run: " : ""}replayed ${network.name} ${unit} ${from}–${result.to}${result.to < to ? ` (${unit} after ${result.to} are not final yet: ${follower} follows them; ${finalIn(result, to, unit)})` : ""}`,
    `evidence found: ${result.found}, new: ${result.added}, already known: ${result.known}`,
  ];
  // What was read is recorded; a range the node could not serve whole is a failure to retry elsewhere.
  const unread = result.unread ?? [];
  const answer = (text: string[]) => {
    if (unread.length === 0) return text.join("\n");
    const some = unread.slice(0, 5).join(", ") + (unread.length > 5 ? ", …" : "");
    throw new CommandFailedError([...text, `not read: ${unread.length} transaction(s) the node listed but did not serve, or served without their block time (${some}); replay the range again against a node with full history`].join("\n"));
  };
  if (dryRun) {
    lines.push(`payments it belongs to: ${result.paymentIds.length}${result.paymentIds.length ? ` (${result.paymentIds.join(", ")})` : ""}`, "Nothing was recorded or reconciled.");
    return answer(lines);
  }
  const changed: string[] = [];
  for (let i = 0; i < result.paymentIds.length; i += BATCH) {
    for (const [id, r] of await reconcilePayments(db, config, result.paymentIds.slice(i, i + BATCH))) {
      if (!r.changed) continue;
      const payment = await findPayment(db, id);
      const received = payment ? ` (received ${r.after.amountReceived} of ${payment.amount} smallest units)` : "";
      changed.push(`  ${id}: ${r.before.status} → ${r.after.status}${received}`);
    }
  }
  lines.push(`payments whose state changed: ${changed.length}`, ...changed);
  return answer(lines);
}
