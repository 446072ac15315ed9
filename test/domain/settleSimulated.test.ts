import { describe, expect, test } from "bun:test";
import { SIMULATED_CREDIT_BLOCK } from "../../db/simulatedCredits.ts";
import { settle, type Credit, type SettleInput } from "../../domain/settle.ts";

const T0 = Date.parse("2025-01-01T00:00:00.000Z");
const t = (minutes: number) => new Date(T0 + minutes * 60_000);
const TEN_USDC = 10_000_000n;

const input = (credits: Credit[], over: Partial<SettleInput> = {}): SettleInput => ({
  amount: TEN_USDC,
  expiresAt: t(30),
  closed: null,
  confirmedAt: null,
  credits,
  head: null,
  requiredConfirmations: 12,
  now: t(10),
  ...over,
});
const simulated = (amount: bigint, minute: number): Credit => ({ amount, blockNumber: SIMULATED_CREDIT_BLOCK, logIndex: 0, timestamp: t(minute), final: true });
const real = (amount: bigint, block: bigint, minute: number): Credit => ({ amount, blockNumber: block, logIndex: 0, timestamp: t(minute) });

describe("settle with a final (simulated) credit", () => {
  test("completes at once with the network's required confirmations, whatever the head", () => {
    for (const head of [null, 0n, 500n]) {
      const result = settle(input([simulated(TEN_USDC, 5)], { head }));
      expect(result).toMatchObject({ status: "completed", confirmations: 12, amountReceived: TEN_USDC, amountRemaining: 0n, excessOwed: 0n, confirmedAt: t(10) });
    }
  });

  test("at least one confirmation when the network asks for none", () => {
    expect(settle(input([simulated(TEN_USDC, 5)], { requiredConfirmations: 0 })).confirmations).toBe(1);
  });

  test("after a real partial credit it is the completing one (it sorts after every real block)", () => {
    const result = settle(input([simulated(6_000_000n, 6), real(4_000_000n, 100n, 5)], { head: 101n }));
    expect(result.status).toBe("completed");
    expect(result.completingCredit?.final).toBe(true);
    expect(result.amountReceived).toBe(TEN_USDC);
  });

  test("a non-final credit of the same amount only confirms", () => {
    const result = settle(input([real(TEN_USDC, 100n, 5)], { head: 100n }));
    expect(result).toMatchObject({ status: "confirming", confirmations: 1 });
  });

  test("a final credit after the deadline is late like any other: it does not complete", () => {
    const closed = settle(input([simulated(TEN_USDC, 12)], { closed: { status: "failed", at: t(11) }, now: t(13) }));
    expect(closed).toMatchObject({ status: "failed", excessOwed: TEN_USDC, lateAmount: TEN_USDC });
  });
});
