import type { AccountState } from "./accountState.ts";

interface Write {
  slot: number;
  before: AccountState | null;
}

/**
 * What each account looked like before it was written in a slot, so that reads at
 * `confirmed` or `finalized` see the state of that older slot (litesvm only keeps the
 * newest state). Writes at or below the finalized slot can never be asked for again
 * and are pruned.
 */
export class AccountHistory {
  private readonly writes = new Map<string, Write[]>();

  /** Records the state an account had before its first write in `slot`. */
  recordWrite(account: string, slot: number, before: AccountState | null): void {
    const list = this.writes.get(account);
    if (!list) {
      this.writes.set(account, [{ slot, before }]);
      return;
    }
    // Only the first write of a slot matters: it holds the state at the end of the previous slot.
    if (list[list.length - 1]!.slot !== slot) list.push({ slot, before });
  }

  /** The account's state at the end of `slot`, given its current state. */
  stateAt(account: string, slot: number, current: AccountState | null): AccountState | null {
    const list = this.writes.get(account);
    const later = list?.find((write) => write.slot > slot);
    return later ? later.before : current;
  }

  /** Accounts written after `slot` (their older state may differ from the current one). */
  writtenAfter(slot: number): string[] {
    const accounts: string[] = [];
    for (const [account, list] of this.writes) {
      if (list[list.length - 1]!.slot > slot) accounts.push(account);
    }
    return accounts;
  }

  prune(finalizedSlot: number): void {
    for (const [account, list] of this.writes) {
      const keep = list.filter((write) => write.slot > finalizedSlot);
      if (keep.length === 0) this.writes.delete(account);
      else if (keep.length !== list.length) this.writes.set(account, keep);
    }
  }
}
