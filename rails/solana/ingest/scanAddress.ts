import { PublicKey, type ConfirmedSignatureInfo, type Connection, type ParsedTransactionWithMeta } from "@solana/web3.js";
import type { Db } from "../../../db/client.ts";
import { STATUSES_PER_CALL } from "../rpcLimits.ts";
import { mentions, tokenBalanceDelta } from "../tokenBalanceDelta.ts";
import type { PaymentWatch } from "../watchedAccount.ts";
import { addressCursor, recordCredits, type FoundBy, type FoundCredit } from "./recordCredits.ts";

const PAGE = 1000;
const TRANSACTIONS_PER_BATCH = 100;

/**
 * One pass over one watched address: every signature since its cursor
 * (`getSignaturesForAddress(address, {until: cursor})`, paged, at `confirmed`), the
 * successful ones fetched (`getTransaction`, jsonParsed, versions 0), each credit read
 * from the watched token account's balance change, stored with the new cursor.
 * Failed transactions are skipped (and passed by the cursor). A transaction the node
 * cannot return yet stops the pass before it; the next pass starts there again.
 * Returns how many credits were new, and whether the pass read everything listed
 * (`complete`: nothing stopped it, nothing was refused): only then does it vouch for the
 * address up to the slot the caller read first (the evidence horizon expiry waits for).
 * That slot is the list's `minContextSlot`: a node behind it (another one behind the same
 * URL) refuses instead of listing fewer signatures, and the pass fails.
 */
export async function scanAddress(
  deps: { db: Db; connection: Connection; chainId: string; channel: string },
  watch: PaymentWatch,
  foundBy: FoundBy,
  minContextSlot?: number,
): Promise<{ inserted: number; complete: boolean }> {
  const { connection } = deps;
  const until = (await addressCursor(deps.db, deps.chainId, watch.scan)) ?? undefined;
  const listed: ConfirmedSignatureInfo[] = [];
  for (let before: string | undefined; ; ) {
    const page = await connection.getSignaturesForAddress(new PublicKey(watch.scan), { until, before, limit: PAGE, minContextSlot }, "confirmed");
    listed.push(...page);
    if (page.length < PAGE) break;
    before = page.at(-1)!.signature;
  }
  if (listed.length === 0) return { inserted: 0, complete: true };
  const oldestFirst = listed.reverse();
  const wanted = oldestFirst.filter((s) => s.err === null).map((s) => s.signature);
  const transactions = new Map<string, ParsedTransactionWithMeta | null>();
  for (let i = 0; i < wanted.length; i += TRANSACTIONS_PER_BATCH) {
    const batch = wanted.slice(i, i + TRANSACTIONS_PER_BATCH);
    const fetched = await connection.getParsedTransactions(batch, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    batch.forEach((signature, j) => transactions.set(signature, fetched[j] ?? null));
  }

  const signatures: Array<{ signature: string; slot: bigint }> = [];
  const credits: FoundCredit[] = [];
  let complete = true;
  for (const info of oldestFirst) {
    if (info.err === null) {
      const transaction = transactions.get(info.signature);
      // Listed but not served yet, or served without its status metadata (no balances to
      // read a credit from): look again next pass — the cursor stays before it.
      if (!transaction?.meta) {
        complete = false;
        break;
      }
      const credit = creditOf(watch, info.signature, transaction);
      if (credit) credits.push(credit);
    }
    signatures.push({ signature: info.signature, slot: BigInt(info.slot) });
  }
  await markFinalized(connection, credits);
  const { inserted, refused } = await recordCredits(deps.db, { chainId: deps.chainId, channel: deps.channel, foundBy, credits, scanned: { address: watch.scan, signatures } });
  return { inserted, complete: complete && refused === null };
}

/** The credit a transaction carries for a watched payment, if any (Solana Pay: only with the reference among its keys). */
export function creditOf(watch: PaymentWatch, signature: string, transaction: ParsedTransactionWithMeta): FoundCredit | null {
  if (watch.source === "settlement" && !mentions(transaction, watch.scan)) return null;
  const delta = tokenBalanceDelta(transaction, watch.credit);
  if (!delta || delta.owner !== watch.owner) return null;
  return {
    signature,
    account: watch.credit.account,
    paymentId: watch.paymentId,
    source: watch.source,
    owner: delta.owner,
    mint: watch.credit.mint,
    tokenProgram: watch.credit.tokenProgram,
    amount: delta.amount,
    slot: BigInt(transaction.slot),
    blockTime: new Date((transaction.blockTime ?? Math.floor(Date.now() / 1000)) * 1000),
    accountIndex: delta.accountIndex,
    finalized: false,
  };
}

/** Marks the credits whose transactions the node already has at `finalized` (asked in batches of the most a node answers). */
export async function markFinalized(connection: Connection, credits: FoundCredit[]): Promise<void> {
  for (let i = 0; i < credits.length; i += STATUSES_PER_CALL) {
    const batch = credits.slice(i, i + STATUSES_PER_CALL);
    const { value } = await connection.getSignatureStatuses(batch.map((c) => c.signature), { searchTransactionHistory: true });
    batch.forEach((c, j) => (c.finalized = value[j]?.confirmationStatus === "finalized" && value[j]?.err === null));
  }
}
