import { describe, expect, test } from "bun:test";
import { BRIDGE_PROGRESS, BRIDGE_STATUSES, bridgeStatusOf, type BridgeProgress, type BridgeStatusValue } from "../../domain/bridgeStatus.ts";

const expected: Record<BridgeProgress, BridgeStatusValue> = {
  waiting: "awaiting_deposit",
  depositing: "deposit_detected",
  pending: "bridging",
  submitted: "bridging",
  delayed: "bridging",
  success: "completed",
  refund: "refunded",
  failure: "failed",
};

describe("bridgeStatusOf", () => {
  test.each(Object.entries(expected))("%s → %s", (progress, status) => {
    expect(bridgeStatusOf(progress as BridgeProgress)).toBe(status);
  });

  test("the table covers every progress value, and nothing else", () => {
    expect(Object.keys(expected).sort()).toEqual([...BRIDGE_PROGRESS].sort());
  });

  test("every answer is a public bridgeStatus; only `refunding` is never produced (Relay reports no refund in flight)", () => {
    const produced = new Set(BRIDGE_PROGRESS.map(bridgeStatusOf));
    for (const status of produced) expect(BRIDGE_STATUSES).toContain(status);
    expect(BRIDGE_STATUSES.filter((s) => !produced.has(s))).toEqual(["refunding"]);
  });

  test("a value outside the union is refused, not mapped", () => {
    expect(() => bridgeStatusOf("fallback" as BridgeProgress)).toThrow(RangeError);
  });
});
