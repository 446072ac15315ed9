import { readFileSync } from "node:fs";
import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { AppError } from "../../domain/errors.ts";
import { chainFor, type RecoveryOptions } from "../../rails/index.ts";
import { CommandFailedError, required, UsageError, type Flags } from "./flags.ts";

/** Unused seed indexes in a row that end the reading (abandoned checkouts leave runs of them). */
const DEFAULT_GAP = 200;

const wholeNumber = (flags: Flags, name: string, fallback: number, max: number): number => {
  if (flags[name] === undefined) return fallback;
  const text = required(flags, name);
  if (!/^\d{1,9}$/.test(text) || Number(text) > max) throw new UsageError(`--${name} must be a whole number up to ${max}`);
  return Number(text);
};

/**
 * The deposits a merchant's records name, one per line as `paymentId,merchantWallet[,depositAddress]`
 * (a header line is skipped), or a JSON array of `{ paymentId | id, merchantWallet, depositAddress? }`.
 */
export function parseDeposits(text: string): RecoveryOptions["deposits"] {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    let rows: unknown;
    try {
      rows = JSON.parse(trimmed);
    } catch (error) {
      throw new UsageError(`--deposits: not JSON: ${(error as Error).message}`);
    }
    if (!Array.isArray(rows)) throw new UsageError("--deposits: a JSON file must hold an array");
    return rows.map((row, i) => {
      const r = (row ?? {}) as Record<string, unknown>;
      const paymentId = r.paymentId ?? r.id;
      if (typeof paymentId !== "string" || typeof r.merchantWallet !== "string") throw new UsageError(`--deposits: entry ${i} needs paymentId (or id) and merchantWallet`);
      return { paymentId, merchantWallet: r.merchantWallet, ...(typeof r.depositAddress === "string" ? { depositAddress: r.depositAddress } : {}) };
    });
  }
  return trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^payment_?id\b/i.test(line))
    .map((line, i) => {
      const [paymentId, merchantWallet, depositAddress] = line.split(",").map((s) => s.trim());
      if (!paymentId || !merchantWallet) throw new UsageError(`--deposits: line ${i + 1} is not paymentId,merchantWallet[,depositAddress]`);
      return { paymentId, merchantWallet, ...(depositAddress ? { depositAddress } : {}) };
    });
}

/**
 * `recover --network N [--destination ADDRESS] [--deposits FILE] [--from-index I] [--gap G] [--dry-run]`:
 * sweeps what the network's deposit addresses still hold from the worker's secrets and the
 * chain, with or without the database (the rail decides what it can find: see `recoverDeposits`).
 * For when the service cannot sweep them itself: stop the worker first (both would spend the
 * operator's nonces and fee money). Exits 1 when a balance found was left where it is.
 */
export async function recover(ctx: { config: Config; db: Db | null; logger: Logger }, flags: Flags): Promise<string> {
  const { config } = ctx;
  const name = required(flags, "network");
  const network = config.networks.find((n) => n.shortName === name);
  if (!network) throw new UsageError(`--network: unknown network "${name}" (one of: ${config.networks.map((n) => n.shortName).join(", ")})`);
  const chain = chainFor(network);
  if (!network.enabled || !chain) throw new UsageError(`--network: ${network.name} is not enabled here (no RPC URL configured)`);
  if (!chain.recoverDeposits) throw new UsageError(`--network: ${network.name} holds no deposits to recover`);
  let destination: string | null = null;
  if (flags.destination !== undefined) {
    destination = chain.normalizeAddress(required(flags, "destination"));
    if (!destination) throw new UsageError(`--destination: not an address on ${network.name}`);
    const problem = await chain.settlementWalletProblem(network, destination, 20_000).catch((error: Error) => {
      throw new CommandFailedError(`could not read ${destination} on ${network.name}: ${error.message.split("\n")[0]}`);
    });
    if (problem) throw new UsageError(`--destination: what is sent to ${destination} could not be spent: ${problem}`);
  }
  let deposits: RecoveryOptions["deposits"] = [];
  if (flags.deposits !== undefined) {
    const file = required(flags, "deposits");
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new UsageError(`--deposits: cannot read ${file}: ${(error as Error).message}`);
    }
    deposits = parseDeposits(text);
  }
  const options: RecoveryOptions = {
    destination,
    deposits,
    fromIndex: wholeNumber(flags, "from-index", 0, 2 ** 31 - 1),
    gap: Math.max(1, wholeNumber(flags, "gap", DEFAULT_GAP, 100_000)),
    dryRun: flags["dry-run"] === true,
  };
  let found;
  try {
    found = await chain.recoverDeposits(ctx, network, options);
  } catch (error) {
    if (error instanceof AppError) throw error.status < 500 ? new UsageError(error.message) : new CommandFailedError(error.message);
    throw new CommandFailedError(`recovery on ${network.name} stopped: ${(error as Error).message.split("\n")[0]}`);
  }
  const decimals = (symbol: string) => network.tokens.find((t) => t.symbol === symbol)?.decimals ?? 0;
  const lines = found.map((f) =>
    [f.address, `${formatAmount(f.amount, decimals(f.token))} ${f.token}`, `-> ${f.to ?? "(nowhere)"}`, ...(f.txHash ? [`tx ${f.txHash}`] : []), ...(f.note ? [`(${f.note})`] : [])].join("  "),
  );
  const moved = found.filter((f) => f.txHash && !f.note).length;
  const left = found.filter((f) => !f.txHash || f.note).length;
  const summary = options.dryRun
    ? `${network.name}: ${found.filter((f) => f.amount > 0n).length} balance(s) found; dry run, nothing sent.`
    : `${network.name}: ${moved} balance(s) recovered${left > 0 ? `, ${left} left where they are (see above)` : ""}.`;
  const text = [...lines, summary].join("\n");
  if (!options.dryRun && left > 0) throw new CommandFailedError(text);
  return text;
}
