import { describe, expect, test } from "bun:test";
import { localAmounts } from "../../../../rails/bridge/local/localAmounts.ts";
import { localMinimum } from "../../../../rails/bridge/local/localMinimum.ts";
import { judgeDeposit } from "../../../../rails/bridge/local/relayer/judgeDeposit.ts";
import { judgedState } from "../../../../rails/bridge/local/relayer/relayerTick.ts";

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

describe("localMinimum: the least the local bridge delivers, its fee covering the fill's gas", () => {
  const usd = (units: bigint, scale: number) => ({ units, scale });
  test.each([
    // fill gas, gas price (wei), native USD, token decimals, fee bps → minimum (smallest units)
    // 51,000 gas at 2 gwei is 0.000102 ETH, $0.000204 at $2: 204 units of USDC; 0.1% of 0.204 USDC covers it.
    ["a USDC fill at 2 gwei, the coin at $2, 10 bps", 51_000n, 2_000_000_000n, usd(2n, 0), 6, 10, 204_000n],
    ["the same in an 18-decimal token", 51_000n, 2_000_000_000n, usd(2n, 0), 18, 10, 204n * 10n ** 15n],
    ["a 1% fee needs a tenth of that", 51_000n, 2_000_000_000n, usd(2n, 0), 6, 100, 20_400n],
    ["the coin at $2,500.5 (a fraction)", 51_000n, 2_000_000_000n, usd(25_005n, 1), 6, 10, 255_051_000n],
    ["a cost below one unit costs a whole unit: 1 unit of fee, 1,000 units at 10 bps", 1n, 1n, usd(1n, 0), 6, 10, 1_000n],
    ["a fee that does not divide the cost rounds the amount up: 2,040,000 / 7", 51_000n, 2_000_000_000n, usd(2n, 0), 6, 7, 291_429n],
    ["a free chain (gas price 0) still has the smallest amount as its minimum", 51_000n, 0n, usd(2n, 0), 6, 10, 1n],
  ])("%s", (_what, fillGas, gasPrice, nativeUsd, tokenDecimals, feeBps, minimum) => {
    expect(localMinimum({ fillGas, gasPrice, nativeUsd, tokenDecimals, feeBps })).toBe(minimum);
  });

  test("no fee, no minimum: the relayer fills at a loss whatever the amount", () => {
    expect(localMinimum({ fillGas: 51_000n, gasPrice: 2_000_000_000n, nativeUsd: usd(2n, 0), tokenDecimals: 6, feeBps: 0 })).toBeNull();
  });

  test("the fee the customer pays on the minimum covers the fill's cost; the exact fee on one unit less falls short of it", () => {
    for (const [gas, price, bps] of [[51_000n, 1_000_000_007n, 10], [34_567n, 123_456_789n, 7], [65_000n, 30_000_000_000n, 25]] as const) {
      const minimum = localMinimum({ fillGas: gas, gasPrice: price, nativeUsd: usd(2n, 0), tokenDecimals: 6, feeBps: bps })!;
      // The cost in USDC units: gas × price wei at $2 per 10^18 wei, rounded up to a unit.
      const cost = (gas * price * 2n + 10n ** 12n - 1n) / 10n ** 12n;
      expect(localAmounts({ amount: minimum, destinationDecimals: 6, originDecimals: 6, feeBps: bps }).fee).toBeGreaterThanOrEqual(cost);
      expect((minimum - 1n) * BigInt(bps)).toBeLessThan(cost * 10_000n);
    }
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
