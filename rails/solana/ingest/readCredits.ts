import type { Connection, ParsedTransactionWithMeta } from "@solana/web3.js";
import { STATUSES_PER_CALL } from "../rpcLimits.ts";
import { mentions, tokenBalanceDelta } from "../tokenBalanceDelta.ts";
import type { PaymentWatch } from "../watchedAccount.ts";
import type { FoundCredit } from "./recordCredits.ts";

/**
 * A batch's transactions by the signature each carries, not by position: @solana/web3.js
 * matches a batch's answers to its calls by position, and a provider may answer a batch
 * in any order — a credit stored under another transaction's signature counts twice once
 * the real one is read. A signature no answer carries was not served.
 */
export function servedBySignature(wanted: readonly string[], fetched: ReadonlyArray<ParsedTransactionWithMeta | null>): Map<string, ParsedTransactionWithMeta | null> {
  const bySignature = new Map(fetched.filter((t) => t !== null).map((t) => [t.transaction.signatures[0], t] as const));
  return new Map(wanted.map((signature) => [signature, bySignature.get(signature) ?? null]));
}

/** A credit as read from its transaction: a node may not tell the block's time (null) until asked for it by slot. */
export type UnstampedCredit = Omit<FoundCredit, "blockTime"> & { blockTime: Date | null };

export const isStamped = (credit: UnstampedCredit): credit is FoundCredit => credit.blockTime !== null;

/**
 * The credit a transaction carries for a watched payment, if any (Solana Pay: only with the
 * reference among its keys). Its time is the transaction's block time, or the one its
 * signature was listed with; never our clock, which would make money paid in time look late.
 */
export function creditOf(watch: PaymentWatch, signature: string, transaction: ParsedTransactionWithMeta, listedBlockTime?: number | null): UnstampedCredit | null {
  if (watch.source === "settlement" && !mentions(transaction, watch.scan)) return null;
  const delta = tokenBalanceDelta(transaction, watch.credit);
  if (!delta || delta.owner !== watch.owner) return null;
  const seconds = transaction.blockTime ?? listedBlockTime ?? null;
  return {
    signature,
    account: watch.credit.account,
    paymentId: watch.paymentId,
    source: watch.source,
    owner: delta.owner,
    payer: delta.payer,
    mint: watch.credit.mint,
    tokenProgram: watch.credit.tokenProgram,
    amount: delta.amount,
    slot: BigInt(transaction.slot),
    blockTime: seconds === null ? null : new Date(seconds * 1000),
    accountIndex: delta.accountIndex,
    finalized: false,
  };
}

/** Asks the node the block time of each credit's slot that came without one (`getBlockTime`); those it cannot tell stay null. */
export async function stampBlockTimes(connection: Connection, credits: UnstampedCredit[]): Promise<void> {
  const slots = [...new Set(credits.filter((c) => !isStamped(c)).map((c) => c.slot))];
  const times = new Map(await Promise.all(slots.map(async (slot) => [slot, await connection.getBlockTime(Number(slot)).catch(() => null)] as const)));
  for (const credit of credits) {
    const seconds = credit.blockTime === null ? times.get(credit.slot) : null;
    if (seconds !== null && seconds !== undefined) credit.blockTime = new Date(seconds * 1000);
  }
}

/** Marks the credits whose transactions the node already has at `finalized` (asked in batches of the most a node answers). */
export async function markFinalized(connection: Connection, credits: FoundCredit[]): Promise<void> {
  for (let i = 0; i < credits.length; i += STATUSES_PER_CALL) {
    const batch = credits.slice(i, i + STATUSES_PER_CALL);
    const { value } = await connection.getSignatureStatuses(batch.map((c) => c.signature), { searchTransactionHistory: true });
    batch.forEach((c, j) => (c.finalized = value[j]?.confirmationStatus === "finalized" && value[j]?.err === null));
  }
}
