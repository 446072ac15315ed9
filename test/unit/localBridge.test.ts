import { describe, expect, test } from "bun:test";
import { localAmounts } from "../../rails/bridge/local/localAmounts.ts";
import { judgeDeposit } from "../../rails/bridge/local/relayer/judgeDeposit.ts";
import { judgedState } from "../../rails/bridge/local/relayer/relayerTick.ts";

describe("localAmounts: what the customer sends for the merchant to receive `amount`", () => {
  test.each([
    // amount, destination decimals, origin decimals, fee bps → base, fee, amountToSend
    ["25.5 USDC → USDC, 0.1%", 25_500_000n, 6, 6, 10, 25_500_000n, 25_500n, 25_525_500n],
    ["no fee", 1_000_000n, 6, 6, 0, 1_000_000n, 0n, 1_000_000n],
    ["the fee rounds up to a whole unit", 1n, 6, 6, 10, 1n, 1n, 2n],
    ["DAI (18) delivered, paid in USDC (6): converted up", 10n ** 18n + 1n, 18, 6, 0, 1_000_001n, 0n, 1_000_001n],
    ["USDC (6) delivered, paid in DAI (18): exact", 1_000_000n, 6, 18, 10, 10n ** 18n, 10n ** 15n, 10n ** 18n + 10n ** 15n],
  ])("%s", (_what, amount, destinationDecimals, originDecimals, feeBps, base, fee, amountToSend) => {
    expect(localAmounts({ amount, destinationDecimals, originDecimals, feeBps })).toEqual({ base, fee, amountToSend });
  });

  test("a zero amount is refused", () => {
    expect(() => localAmounts({ amount: 0n, destinationDecimals: 6, originDecimals: 6, feeBps: 10 })).toThrow(RangeError);
  });
});

describe("judgeDeposit: strict, to the second", () => {
  const expiresAt = new Date("2026-01-01T00:30:00.000Z");
  const open = { state: "open" as const, amountToSend: 1_000n, expiresAt, refundRequested: false };
  const at = (iso: string) => new Date(iso);

  test.each([
    ["exact and in time fills", open, 1_000n, "2026-01-01T00:29:59Z", "fill", "filling", "paid"],
    ["in the block stamped at the expiry fills", open, 1_000n, "2026-01-01T00:30:00Z", "fill", "filling", "paid"],
    ["one second late is returned", open, 1_000n, "2026-01-01T00:30:01Z", "refund", "refunding", "late"],
    ["one unit short is returned", open, 999n, "2026-01-01T00:00:00Z", "refund", "refunding", "underpaid"],
    ["more fills, the excess goes back", open, 1_500n, "2026-01-01T00:00:00Z", "fill", "filling", "overpaid by 500"],
    ["after a refund was asked for, returned", { ...open, refundRequested: true }, 1_000n, "2026-01-01T00:00:00Z", "refund", "refunding", "a refund was requested"],
    ["a second deposit after a fill is returned", { ...open, state: "filling" as const }, 1_000n, "2026-01-01T00:00:00Z", "refund", "filling", "already filling"],
    ["a deposit to a refunded request is returned", { ...open, state: "refunded" as const }, 1_000n, "2026-01-01T00:00:00Z", "refund", "refunded", "already refunded"],
  ] as const)("%s", (_what, request, amount, time, disposition, state, reason) => {
    const judged = judgeDeposit(request, { amount, blockTimestamp: at(time) });
    expect(judged.disposition).toBe(disposition);
    expect(judged.state).toBe(state);
    expect(judged.reason).toContain(reason);
  });
});

describe("judgedState: the state a request's judged deposits put it in", () => {
  // A pass cut short between judging a deposit and saving the request's state left it `open`:
  // a second deposit was then judged against `open` and filled again.
  test.each([
    ["open", [], "open"],
    ["open", [{ disposition: null }], "open"],
    ["open", [{ disposition: "fill" }], "filling"],
    ["open", [{ disposition: "refund" }, { disposition: null }], "refunding"],
    ["open", [{ disposition: "refund" }, { disposition: "fill" }], "filling"],
    ["filled", [{ disposition: "fill" }], "filled"],
    ["refunding", [{ disposition: "refund" }], "refunding"],
    ["failed", [{ disposition: "fill" }], "failed"],
  ] as const)("%s with %j → %s", (state, deposits, expected) => {
    expect(judgedState(state, deposits)).toBe(expected);
  });

  test("after a crash left a filled request open, a second deposit is refunded, not filled", () => {
    const request = { amountToSend: 10n, expiresAt: new Date(Date.now() + 60_000), refundRequested: false };
    const state = judgedState("open", [{ disposition: "fill" }]);
    expect(judgeDeposit({ ...request, state }, { amount: 10n, blockTimestamp: new Date() }).disposition).toBe("refund");
  });
});
