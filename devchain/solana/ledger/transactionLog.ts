import type { TransactionRecord } from "./transactionRecord.ts";

export interface SignatureQuery {
  /** Only transactions in slots at or below this one. */
  maxSlot: number;
  limit: number;
  before?: string;
  until?: string;
}

/**
 * The signature index litesvm lacks: every executed transaction by signature, and by
 * each account key it names (static and loaded), in execution order.
 */
export class TransactionLog {
  private readonly bySignature = new Map<string, TransactionRecord>();
  private readonly byAccount = new Map<string, TransactionRecord[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  nextSeq(): number {
    return this.count;
  }

  add(record: TransactionRecord): void {
    this.bySignature.set(record.signature, record);
    for (const key of new Set(record.accountKeys)) {
      const list = this.byAccount.get(key);
      if (list) list.push(record);
      else this.byAccount.set(key, [record]);
    }
    this.count++;
  }

  /** Transactions in slots at or below `slot`. */
  countUpTo(slot: number): number {
    let count = 0;
    for (const record of this.bySignature.values()) if (record.slot <= slot) count++;
    return count;
  }

  get(signature: string): TransactionRecord | undefined {
    return this.bySignature.get(signature);
  }

  /** Newest first, as getSignaturesForAddress answers; `before` and `until` are exclusive. */
  forAccount(account: string, query: SignatureQuery): TransactionRecord[] {
    const list = this.byAccount.get(account) ?? [];
    // Like a real node: an unknown `before` finds nothing, an unknown `until` bounds nothing.
    const beforeSeq = query.before === undefined ? Infinity : this.bySignature.get(query.before)?.seq;
    if (beforeSeq === undefined) return [];
    const untilSeq = query.until === undefined ? -1 : (this.bySignature.get(query.until)?.seq ?? -1);
    const found: TransactionRecord[] = [];
    for (let i = list.length - 1; i >= 0 && found.length < query.limit; i--) {
      const record = list[i]!;
      if (record.seq <= untilSeq) break;
      if (record.seq >= beforeSeq || record.slot > query.maxSlot) continue;
      found.push(record);
    }
    return found;
  }
}
