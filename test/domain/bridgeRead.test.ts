import { describe, expect, test } from "bun:test";
import { BRIDGE_QUIET_MS, bridgeGaveUp, bridgeReadChanged, bridgeReadFields, bridgeWatch, type BridgeProgressUpdate, type StoredBridgeRead } from "../../domain/bridgeRead.ts";
import { BRIDGE_PROGRESS, BRIDGE_STUCK_MS, CARRYING, type BridgeProgress } from "../../domain/bridgeStatus.ts";

const T0 = Date.parse("2025-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(T0 + ms);
const HOUR = 60 * 60 * 1000;

/** A request for 10 units (the bridge asks 10.1 of the origin token), expiring at T0 + 1 h, last changed at T0. */
const stored = (over: Partial<StoredBridgeRead> = {}): StoredBridgeRead => ({
  progress: "waiting",
  bridgeStatus: "awaiting_deposit",
  originTxHashes: [],
  destinationTxHashes: [],
  refundTxHashes: [],
  depositAmount: 0n,
  depositedAt: null,
  refundedAmount: 0n,
  failReason: null,
  refundRequestedAt: null,
  amountToSend: 10_100_000n,
  expiresAt: at(HOUR),
  changedAt: at(0),
  ...over,
});

const read = (over: Partial<BridgeProgressUpdate> = {}): BridgeProgressUpdate => ({
  progress: "waiting",
  bridgeStatus: "awaiting_deposit",
  originTxHashes: [],
  destinationTxHashes: [],
  refundTxHashes: [],
  depositAmount: 0n,
  depositedAt: null,
  refundedAmount: 0n,
  originUnverified: false,
  fills: [],
  failReason: null,
  details: null,
  bridgeUpdatedAt: null,
  refundRequested: false,
  readAt: at(0),
  seenThrough: null,
  ...over,
});

describe("bridgeReadFields: what a read records", () => {
  test("a fully verified read replaces the legs, lower figures included", () => {
    const before = stored({ depositAmount: 10_100_000n, depositedAt: at(1), refundedAmount: 5n });
    expect(bridgeReadFields(before, read({ depositAmount: 3n, depositedAt: at(2), refundedAmount: 0n }), at(10))).toMatchObject({ depositAmount: 3n, depositedAt: at(2), refundedAmount: 0n });
  });

  test("a read that could not check every leg only adds: the larger deposit with its time, the larger refund", () => {
    const before = stored({ depositAmount: 10_100_000n, depositedAt: at(1), refundedAmount: 5n });
    const lower = bridgeReadFields(before, read({ originUnverified: true, depositAmount: 3n, depositedAt: at(2), refundedAmount: 0n }), at(10));
    expect(lower).toMatchObject({ depositAmount: 10_100_000n, depositedAt: at(1), refundedAmount: 5n });
    const higher = bridgeReadFields(before, read({ originUnverified: true, depositAmount: 20_000_000n, depositedAt: at(3), refundedAmount: 7n }), at(10));
    expect(higher).toMatchObject({ depositAmount: 20_000_000n, depositedAt: at(3), refundedAmount: 7n });
    // No time stored yet: the read's stands.
    expect(bridgeReadFields(stored({ depositAmount: 10n }), read({ originUnverified: true, depositAmount: 1n, depositedAt: at(4) }), at(10)).depositedAt).toEqual(at(4));
  });

  test("a refund's or a refunding bridge's remarks are its reason; the bridge's own failure reason comes first", () => {
    expect(bridgeReadFields(stored(), read({ progress: "refund", details: "underpaid" }), at(1)).failReason).toBe("underpaid");
    expect(bridgeReadFields(stored(), read({ progress: "failure", bridgeStatus: "refunding", details: "late" }), at(1)).failReason).toBe("late");
    expect(bridgeReadFields(stored(), read({ progress: "failure", details: "noise" }), at(1)).failReason).toBeNull();
    expect(bridgeReadFields(stored(), read({ progress: "refund", failReason: "solver down", details: "underpaid" }), at(1)).failReason).toBe("solver down");
  });

  test("the first time the service asked for a refund stays", () => {
    expect(bridgeReadFields(stored(), read({ refundRequested: true }), at(5)).refundRequestedAt).toEqual(at(5));
    expect(bridgeReadFields(stored({ refundRequestedAt: at(2) }), read({ refundRequested: true }), at(5)).refundRequestedAt).toEqual(at(2));
    expect(bridgeReadFields(stored(), read(), at(5)).refundRequestedAt).toBeNull();
  });
});

describe("bridgeReadChanged", () => {
  test("the same read twice is no change; any field a merchant sees is one", () => {
    const before = stored();
    expect(bridgeReadChanged(before, bridgeReadFields(before, read(), at(1)))).toBe(false);
    expect(bridgeReadChanged(before, bridgeReadFields(before, read({ progress: "depositing" }), at(1)))).toBe(true);
    expect(bridgeReadChanged(before, bridgeReadFields(before, read({ originTxHashes: ["0xd1"] }), at(1)))).toBe(true);
    expect(bridgeReadChanged(before, bridgeReadFields(before, read({ depositAmount: 1n }), at(1)))).toBe(true);
    expect(bridgeReadChanged(before, bridgeReadFields(before, read({ depositedAt: at(0) }), at(1)))).toBe(true);
  });
});

describe("bridgeWatch: when the watch of a request ends", () => {
  const watch = (progress: BridgeProgress, over: { stored?: Partial<StoredBridgeRead>; next?: Partial<BridgeProgressUpdate>; filled?: bigint; changed?: boolean; now?: Date } = {}) => {
    const before = stored(over.stored);
    return bridgeWatch({ stored: before, next: bridgeReadFields(before, read({ progress, ...over.next }), over.now ?? at(1)), filled: over.filled ?? 0n, amount: 10_000_000n, changed: over.changed ?? false, now: over.now ?? at(1) });
  };

  test("refunded: finished at once", () => {
    expect(watch("refund")).toMatchObject({ finished: true, settled: false });
  });

  test("filled in full: finished, unless an excess the customer sent is still to be returned", () => {
    expect(watch("success", { filled: 10_000_000n, next: { depositAmount: 10_100_000n } })).toMatchObject({ finished: true, settled: true });
    expect(watch("success", { filled: 10_000_000n, next: { depositAmount: 11_100_000n } })).toMatchObject({ finished: false, settled: true });
    // Returned less the refund's gas: any verified refund is the return.
    expect(watch("success", { filled: 10_000_000n, next: { depositAmount: 11_100_000n, refundedAmount: 1n } })).toMatchObject({ finished: true, settled: true });
  });

  test("a success whose fills fall short is not settled", () => {
    expect(watch("success", { filled: 9_999_999n })).toMatchObject({ finished: false, settled: false });
  });

  test("a failure is settled (only a refund may still show) and finished after a quiet day", () => {
    expect(watch("failure")).toMatchObject({ finished: false, settled: true });
    expect(watch("failure", { now: at(BRIDGE_QUIET_MS - 1) }).finished).toBe(false);
    expect(watch("failure", { now: at(BRIDGE_QUIET_MS) }).finished).toBe(true);
    // A change restarts the day.
    expect(watch("failure", { now: at(BRIDGE_QUIET_MS), changed: true })).toMatchObject({ finished: false, changedAt: at(BRIDGE_QUIET_MS) });
  });

  test("never paid: finished only an hour past the expiry, and only while no deposit is listed", () => {
    expect(watch("waiting", { now: at(2 * HOUR) }).finished).toBe(false);
    expect(watch("waiting", { now: at(2 * HOUR + 1) }).finished).toBe(true);
    expect(watch("waiting", { now: at(3 * HOUR), next: { originTxHashes: ["0xd1"] } }).finished).toBe(false);
    expect(watch("waiting", { now: at(3 * HOUR), next: { depositAmount: 1n } }).finished).toBe(false);
  });

  test("carrying the money: never finished; stuck once nothing changed for BRIDGE_STUCK_MS", () => {
    for (const progress of CARRYING) {
      expect(watch(progress, { now: at(100 * HOUR) }).finished).toBe(false);
      expect(watch(progress, { now: at(BRIDGE_STUCK_MS - 1) }).stuck).toBe(false);
      expect(watch(progress, { now: at(BRIDGE_STUCK_MS) }).stuck).toBe(true);
      expect(watch(progress, { now: at(BRIDGE_STUCK_MS), changed: true }).stuck).toBe(false);
    }
    for (const progress of BRIDGE_PROGRESS.filter((p) => !CARRYING.includes(p))) expect(watch(progress, { now: at(BRIDGE_STUCK_MS) }).stuck).toBe(false);
  });
});

describe("bridgeGaveUp: the evidence `settle` ends a payment on", () => {
  test("only a refund or a failure, with the reason", () => {
    expect(bridgeGaveUp({ progress: "refund", failReason: "underpaid" })).toBe("The bridge refunded the customer: underpaid");
    expect(bridgeGaveUp({ progress: "failure", failReason: null })).toBe("The bridge failed");
    for (const progress of BRIDGE_PROGRESS.filter((p) => p !== "refund" && p !== "failure")) expect(bridgeGaveUp({ progress, failReason: "x" })).toBeNull();
  });
});
