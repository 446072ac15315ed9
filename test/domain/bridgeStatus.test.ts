import { describe, expect, test } from "bun:test";
import { BRIDGE_PROGRESS, BRIDGE_STATUSES, bridgeStatusOf, publicBridgeStatus, type BridgeProgress, type BridgeStatusValue } from "../../domain/bridgeStatus.ts";

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

describe("publicBridgeStatus", () => {
  test("without a refund under way it is bridgeStatusOf", () => {
    for (const progress of BRIDGE_PROGRESS) expect(publicBridgeStatus(progress, { underWay: false })).toBe(bridgeStatusOf(progress));
  });

  // BUG: Relay's `waiting` over a deposit verified on chain said awaiting_deposit: the checkout page asked the customer to pay again.
  test("waiting with a verified deposit is deposit_detected; every other progress is as without one", () => {
    for (const progress of BRIDGE_PROGRESS) {
      expect(publicBridgeStatus(progress, { underWay: false, deposited: true })).toBe(progress === "waiting" ? "deposit_detected" : bridgeStatusOf(progress));
      expect(publicBridgeStatus(progress, { underWay: true, deposited: true })).toBe(publicBridgeStatus(progress, { underWay: true }));
    }
  });

  test.each([
    ["waiting", "refunding"],
    ["depositing", "refunding"],
    ["pending", "refunding"],
    ["submitted", "refunding"],
    ["delayed", "refunding"],
    ["failure", "refunding"],
    // Filled (an overpayment's excess going back) stays completed; a finished refund is refunded.
    ["success", "completed"],
    ["refund", "refunded"],
  ] as const)("a refund under way while %s → %s", (progress, status) => {
    expect(publicBridgeStatus(progress, { underWay: true })).toBe(status);
  });

  test("so every public bridgeStatus can be produced", () => {
    const produced = new Set(BRIDGE_PROGRESS.flatMap((p) => [publicBridgeStatus(p, { underWay: false }), publicBridgeStatus(p, { underWay: true })]));
    expect([...produced].sort()).toEqual([...BRIDGE_STATUSES].sort());
  });
});
