import { describe, expect, test } from "bun:test";
import { signedRefundDue } from "../../payouts/index.ts";

describe("signedRefundDue: what a refund the merchant's wallet signs may send", () => {
  // An x402 payment of 2 USDC: all of it went to the merchant's wallet (less the fee).
  const payment = { amountReceived: 2_000_000n, tokenDecimals: 6, tokenSymbol: "USDC" };
  const due = (refunded: bigint, asked: bigint | null, minimum = "0.50") => signedRefundDue({ payment, refunded, asked, minimum });

  test("all that is not refunded yet by default, or what is asked", () => {
    expect(due(0n, null)).toEqual({ amount: 2_000_000n });
    expect(due(500_000n, null)).toEqual({ amount: 1_500_000n });
    expect(due(0n, 700_000n)).toEqual({ amount: 700_000n });
    expect(due(1_000_000n, 1_000_000n)).toEqual({ amount: 1_000_000n });
  });

  test("never more than received less refunded: more, or nothing left, is nothing_to_refund", () => {
    for (const [refunded, asked] of [
      [0n, 2_000_001n],
      [1_500_000n, 600_000n],
      [2_000_000n, null],
      [2_500_000n, null],
    ] as Array<[bigint, bigint | null]>) {
      const r = due(refunded, asked);
      expect("refused" in r && r.refused.code).toBe("nothing_to_refund");
    }
    expect(signedRefundDue({ payment: { ...payment, amountReceived: 0n }, refunded: 0n, asked: null, minimum: "0.50" })).toMatchObject({ refused: { code: "nothing_to_refund" } });
  });

  test("below the refund minimum is refused, at the minimum is sent (rounded up to the token's units)", () => {
    expect(due(0n, 499_999n)).toMatchObject({ refused: { code: "refund_below_minimum" } });
    expect(due(1_600_000n, null)).toMatchObject({ refused: { code: "refund_below_minimum" } });
    expect(due(0n, 500_000n)).toEqual({ amount: 500_000n });
    expect(due(0n, 1n, "0.0000001")).toEqual({ amount: 1n });
  });
});
