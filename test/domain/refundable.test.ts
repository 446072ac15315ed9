import { expect, test } from "bun:test";
import { nextSweep, refundable, refundMinimum, sweepOwed } from "../../domain/refundable.ts";

test("refundMinimum: token units to smallest units at the token's decimals, rounded up", () => {
  const cases: Array<[string, number, bigint]> = [
    ["0.50", 6, 500_000n],
    ["0.50", 18, 500_000_000_000_000_000n],
    ["0", 6, 0n],
    ["1", 0, 1n],
    // A token with fewer decimals than the minimum is written with: never rounded down to less.
    ["0.5", 0, 1n],
    ["0.000001", 2, 1n],
    ["1.005", 2, 101n],
    ["123456789012.123456", 6, 123_456_789_012_123_456n],
  ];
  for (const [minimum, decimals, units] of cases) expect(refundMinimum(minimum, decimals)).toBe(units);
  expect(() => refundMinimum("-1", 6)).toThrow(RangeError);
});

test("refundable: what is owed less what was refunded, never below zero; nothing without a deposit address", () => {
  const held = { excessOwed: 5n, receiveAddress: "0xdeposit" };
  expect(refundable(held, 0n)).toBe(5n);
  expect(refundable(held, 3n)).toBe(2n);
  expect(refundable(held, 5n)).toBe(0n);
  expect(refundable(held, 9n)).toBe(0n);
  expect(refundable({ ...held, receiveAddress: null }, 0n)).toBe(0n);
});

test("sweepOwed: the amount of a payment completed by transfers to its address, less what was swept", () => {
  const payment = { status: "completed", completedVia: "transfer", receiveAddress: "0xdeposit", amount: 10n };
  expect(sweepOwed(payment, 0n)).toBe(10n);
  expect(sweepOwed(payment, 4n)).toBe(6n);
  expect(sweepOwed(payment, 10n)).toBe(0n);
  expect(sweepOwed(payment, 12n)).toBe(0n);
  expect(sweepOwed({ ...payment, completedVia: "contract" }, 0n)).toBe(0n);
  expect(sweepOwed({ ...payment, status: "expired" }, 0n)).toBe(0n);
  expect(sweepOwed({ ...payment, receiveAddress: null }, 0n)).toBe(0n);
});

// BUG: a contract payment paid by a plain transfer to its address (the QR code) was forwarded
// whole to the merchant: the service fee its intent named was never taken, while splitter-status
// reported it taken.
test("nextSweep: the merchant's share first, then the fee to its recipient; without a fee, the whole amount", () => {
  const payment = { status: "completed", completedVia: "transfer", receiveAddress: "0xdeposit", amount: 100n, merchantWallet: "0xmerchant", feeAmount: 1n, feeRecipient: "0xfee" };
  expect(nextSweep(payment, 0n)).toEqual({ to: "0xmerchant", amount: 99n });
  expect(nextSweep(payment, 40n)).toEqual({ to: "0xmerchant", amount: 59n });
  expect(nextSweep(payment, 99n)).toEqual({ to: "0xfee", amount: 1n });
  expect(nextSweep(payment, 100n)).toBeNull();
  expect(nextSweep({ ...payment, feeAmount: 0n }, 0n)).toEqual({ to: "0xmerchant", amount: 100n });
  expect(nextSweep({ ...payment, feeRecipient: null }, 0n)).toEqual({ to: "0xmerchant", amount: 100n });
  expect(nextSweep({ ...payment, completedVia: "settlement" }, 0n)).toBeNull();
});
