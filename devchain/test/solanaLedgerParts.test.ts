import { describe, expect, test } from "bun:test";
import { uiTokenAmount } from "../solana/encode/uiTokenAmount.ts";
import { AccountHistory } from "../solana/ledger/accountHistory.ts";
import type { AccountState } from "../solana/ledger/accountState.ts";
import { SlotClock } from "../solana/ledger/slotClock.ts";

describe("uiTokenAmount", () => {
  test.each([
    [0n, 6, "0", 0],
    [1n, 6, "0.000001", 0.000001],
    [1_500_000n, 6, "1.5", 1.5],
    [12_345_678n, 6, "12.345678", 12.345678],
    [100_000_000n, 6, "100", 100],
    [42n, 0, "42", 42],
    [1_000_000_000_000_000_001n, 18, "1.000000000000000001", 1],
  ])("%p with %p decimals is %p", (amount, decimals, uiAmountString, uiAmount) => {
    expect(uiTokenAmount(amount, decimals)).toEqual({ amount: amount.toString(), decimals, uiAmount, uiAmountString });
  });

  test("transaction metas show a zero balance's uiAmount as null", () => {
    expect(uiTokenAmount(0n, 6, { zeroAsNull: true }).uiAmount).toBeNull();
    expect(uiTokenAmount(5n, 6, { zeroAsNull: true }).uiAmount).toBe(0.000005);
  });
});

describe("AccountHistory", () => {
  const state = (lamports: bigint): AccountState => ({ lamports, owner: "11111111111111111111111111111111", data: new Uint8Array(), executable: false });

  test("reads an account as it was at the end of an older slot", () => {
    const history = new AccountHistory();
    history.recordWrite("a", 5, null); // created in slot 5
    history.recordWrite("a", 7, state(10n)); // changed in slot 7
    history.recordWrite("a", 7, state(11n)); // a second write in slot 7 keeps the slot's first
    const now = state(12n);
    expect(history.stateAt("a", 4, now)).toBeNull();
    expect(history.stateAt("a", 5, now)).toEqual(state(10n));
    expect(history.stateAt("a", 6, now)).toEqual(state(10n));
    expect(history.stateAt("a", 7, now)).toBe(now);
    expect(history.writtenAfter(6)).toEqual(["a"]);
    history.prune(6);
    expect(history.stateAt("a", 6, now)).toEqual(state(10n));
    history.prune(7);
    expect(history.writtenAfter(0)).toEqual([]);
  });
});

describe("SlotClock", () => {
  test("commitment slots trail the tip; blockhashes expire after the validity window", () => {
    const clock = new SlotClock({ finalityDepth: 3, blockhashValiditySlots: 2 }, "genesis");
    for (let slot = 1; slot <= 5; slot++) clock.open(`hash${slot}`);
    expect([clock.slotAt("processed"), clock.slotAt("confirmed"), clock.slotAt("finalized")]).toEqual([5, 4, 2]);
    expect([clock.commitmentOf(5), clock.commitmentOf(3), clock.commitmentOf(2)]).toEqual(["processed", "confirmed", "finalized"]);
    expect(clock.isBlockhashValid("hash3")).toBe(true);
    expect(clock.isBlockhashValid("hash2")).toBe(false);
    expect(clock.lastValidBlockHeight(3)).toBe(5);
    expect(clock.block(5)).toMatchObject({ parentSlot: 4, previousBlockhash: "hash4", blockHeight: 5 });
  });
});
