import { describe, expect, test } from "bun:test";
import { refundDue, routeRefund, solePayer, type RefundAsk } from "../../payouts/index.ts";
import type { Payers } from "../../reconcile/index.ts";

const A = "0x00000000000000000000000000000000000000A1";
const B = "0x00000000000000000000000000000000000000B2";
const ELSEWHERE = "0x00000000000000000000000000000000000000E3";
const payers = (entries: Array<[string, bigint]>, unknown = 0n): Payers => ({ byAddress: new Map(entries), unknown });
const ask = (over: Partial<RefundAsk>): RefundAsk => ({ requestedBy: "customer", to: null, signed: null, ...over });

describe("routeRefund: where a refund may go, and on whose word", () => {
  const one = payers([[A, 12_000_000n]]);
  const two = payers([
    [A, 10_000_000n],
    [B, 2_000_000n],
  ]);

  test("a customer's request with no address, or the payer's own, goes back to the one address that paid", () => {
    expect(routeRefund(ask({}), one)).toEqual({ action: "send", to: A, authorizedBy: "payer", cap: null });
    expect(routeRefund(ask({ to: A }), one)).toEqual({ action: "send", to: A, authorizedBy: "payer", cap: null });
  });

  test("a customer's request for any other address sends nothing: it awaits approval", () => {
    expect(routeRefund(ask({ to: ELSEWHERE }), one)).toEqual({ action: "await", to: ELSEWHERE });
  });

  test("several payers, or a payer not known: the default is refused, a named address (even a payer's) waits", () => {
    for (const who of [two, payers([], 5n), payers([[A, 1n]], 5n), payers([])]) {
      const refused = routeRefund(ask({}), who);
      expect(refused.action).toBe("refuse");
      expect(refused.action === "refuse" && refused.refusal.code).toBe("refund_address_required");
      expect(routeRefund(ask({ to: A }), who)).toEqual({ action: "await", to: A });
      expect(routeRefund(ask({ to: ELSEWHERE }), who)).toEqual({ action: "await", to: ELSEWHERE });
    }
  });

  test("a paying address's signature sends where it says, for at most what it covers and what that address paid", () => {
    expect(routeRefund(ask({ to: ELSEWHERE, signed: { signer: A, amount: 2_000_000n } }), one)).toEqual({ action: "send", to: ELSEWHERE, authorizedBy: "signature", cap: 2_000_000n });
    // B paid 2: its signature can never take A's money, whatever it covers.
    expect(routeRefund(ask({ to: ELSEWHERE, signed: { signer: B, amount: 9_000_000n } }), two)).toEqual({ action: "send", to: ELSEWHERE, authorizedBy: "signature", cap: 2_000_000n });
    expect(routeRefund(ask({ to: B, signed: { signer: A, amount: 1_000_000n } }), two)).toEqual({ action: "send", to: B, authorizedBy: "signature", cap: 1_000_000n });
  });

  test("the merchant (key + secret) may send anywhere; without an address, to the sole payer only", () => {
    expect(routeRefund(ask({ requestedBy: "merchant", to: ELSEWHERE }), two)).toEqual({ action: "send", to: ELSEWHERE, authorizedBy: "merchant", cap: null });
    expect(routeRefund(ask({ requestedBy: "merchant" }), one)).toEqual({ action: "send", to: A, authorizedBy: "merchant", cap: null });
    expect(routeRefund(ask({ requestedBy: "merchant" }), two).action).toBe("refuse");
  });

  test("solePayer: exactly one known address and nothing from an unknown one", () => {
    expect(solePayer(one)).toBe(A);
    expect(solePayer(two)).toBeNull();
    expect(solePayer(payers([[A, 1n]], 1n))).toBeNull();
    expect(solePayer(payers([]))).toBeNull();
  });
});

describe("refundDue: never more than is owed, whoever asks", () => {
  // A deposit of 10 USDC paid 12: 2 owed back, 10 due to the merchant until swept.
  const payment = { status: "completed" as const, excessOwed: 2_000_000n, receiveAddress: "0xdeposit", completedVia: "transfer" as const, amount: 10_000_000n, tokenDecimals: 6, tokenSymbol: "USDC" };
  const due = (over: Partial<Parameters<typeof refundDue>[0]> = {}) => refundDue({ payment, refunded: 0n, swept: 0n, stillHeld: 12_000_000n, cap: null, minimum: "0.50", ...over });

  test("the excess, less what was refunded", () => {
    expect(due()).toEqual({ amount: 2_000_000n });
    expect(due({ refunded: 1_000_000n })).toEqual({ amount: 1_000_000n });
    expect(due({ stillHeld: null })).toEqual({ amount: 2_000_000n });
  });

  test("capped by a request's amount or a signature, never raised by one", () => {
    expect(due({ cap: 1_500_000n })).toEqual({ amount: 1_500_000n });
    expect(due({ cap: 50_000_000n })).toEqual({ amount: 2_000_000n });
  });

  test("no more than the address holds beyond the merchant's sweep", () => {
    expect(due({ stillHeld: 11_000_000n })).toEqual({ amount: 1_000_000n });
    const none = due({ stillHeld: 10_000_000n });
    expect("refused" in none && none.refused.code).toBe("refund_not_held");
    // Swept already: the merchant's share left, the excess is all that is held.
    expect(due({ stillHeld: 2_000_000n, swept: 10_000_000n })).toEqual({ amount: 2_000_000n });
  });

  test("nothing owed, or less than the minimum, is refused with its code", () => {
    const nothing = due({ refunded: 2_000_000n });
    expect("refused" in nothing && nothing.refused.code).toBe("nothing_to_refund");
    const pending = refundDue({ payment: { ...payment, status: "pending", excessOwed: 0n }, refunded: 0n, swept: 0n, stillHeld: null, cap: null, minimum: "0.50" });
    expect("refused" in pending && pending.refused.message).toBe("Nothing to refund: the payment is pending and owes the customer nothing yet.");
    const dust = due({ cap: 400_000n });
    expect("refused" in dust && dust.refused.code).toBe("refund_below_minimum");
    expect("refused" in dust && dust.refused.message).toContain("0.4 USDC, less than the 0.5 USDC");
    expect(due({ cap: 400_000n, minimum: "0" })).toEqual({ amount: 400_000n });
  });

  test("a payment without an address of its own owes nothing from here", () => {
    const contract = refundDue({ payment: { ...payment, receiveAddress: null }, refunded: 0n, swept: 0n, stillHeld: null, cap: null, minimum: "0" });
    expect("refused" in contract && contract.refused.code).toBe("nothing_to_refund");
  });
});
