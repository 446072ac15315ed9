import { describe, expect, test } from "bun:test";
import { describeStatus, format, formatAmount, payingOf, phaseOf, refundLines, sectionsOf, timeLeft } from "../../../api/checkout/assets/status.js";
import { refusalOf } from "../../../api/checkout/assets/refund.js";
import { LANGUAGES, chooseLanguage } from "../../../api/checkout/messages/index.ts";
import { en } from "../../../api/checkout/messages/en.ts";
import type { PublicPaymentView } from "../../../api/presenters/publicPayment.ts";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const view = (over: Partial<PublicPaymentView> = {}): PublicPaymentView =>
  ({
    id: "0d2f7c8e-3f4b-4a8e-9a51-52b1a7f4c0aa",
    status: "pending",
    amount: "25.5",
    amountReceived: "0",
    amountRemaining: "25.5",
    excessOwed: "0",
    token: "USDC",
    network: "base",
    networkName: "Base",
    confirmations: 0,
    requiredConfirmations: 10,
    receiveAddress: "0x440F6B3AA75B0E839c6E3FBE9E2BDe866813cbea",
    transactionHash: null,
    merchantName: "Acme",
    successUrl: null,
    cancelUrl: null,
    expiresAt: "2026-11-23T12:30:00Z",
    refunds: [],
    ...over,
  }) as PublicPaymentView;

describe("checkout status (assets/status.js, shared by the server and the page)", () => {
  test.each([
    ["waiting", {}],
    ["partial", { amountReceived: "4", amountRemaining: "21.5" }],
    ["expiring", { expiresAt: "2026-11-23T11:59:59Z" }],
    ["confirming", { status: "confirming", amountReceived: "25.5", amountRemaining: "0", confirmations: 3 }],
    ["completed", { status: "completed", amountReceived: "25.5", amountRemaining: "0" }],
    ["overpaid", { status: "completed", amountReceived: "27.5", amountRemaining: "0", excessOwed: "2" }],
    ["expired", { status: "expired" }],
    ["closed", { status: "cancelled" }],
    ["closed", { status: "failed" }],
  ] as const)("phase %s", (phase, over) => {
    expect(phaseOf(view(over as Partial<PublicPaymentView>), NOW)).toBe(phase);
  });

  test("what each phase says, with exact amounts in the page's language", () => {
    expect(describeStatus(view({ amountReceived: "4", amountRemaining: "21.5" }), en, "en", NOW)).toEqual({
      phase: "partial",
      tone: "info",
      title: "Part of the payment has arrived",
      detail: "Received 4.00 USDC. Send the remaining 21.50 USDC to finish.",
    });
    expect(describeStatus(view({ status: "confirming", confirmations: 3 }), en, "en", NOW).detail).toBe("3 of 10 network confirmations.");
    expect(describeStatus(view({ status: "expired", amountReceived: "4", excessOwed: "4" }), en, "en", NOW).detail).toBe(
      "The full amount did not arrive in time. 4.00 USDC is owed back to you: give an address below to get it back.",
    );
    expect(describeStatus(view({ status: "expired", amountReceived: "4", excessOwed: "0" }), en, "en", NOW).detail).toBe(
      "The full amount did not arrive in time. What you sent is being returned to you.",
    );
    const french = LANGUAGES.find((l) => l.code === "fr")!.messages;
    expect(describeStatus(view({ amountReceived: "1234.5", amountRemaining: "0.000001" }), french, "fr", NOW).detail).toBe(
      "Reçu : 1\u202f234,50 USDC. Envoyez les 0,000001 USDC restants pour terminer.",
    );
  });

  test("amounts are formatted exactly, never through a float", () => {
    expect(formatAmount("123456789012345678.123456789012345678", "en")).toBe("123,456,789,012,345,678.123456789012345678");
    expect(formatAmount("0.1", "es")).toBe("0,10");
    expect(formatAmount("10", "en")).toBe("10.00");
  });

  test("sections: pay while money is due, the refund form only when something is owed back, links when given", () => {
    expect(sectionsOf(view({ cancelUrl: "https://shop.example/cart" }), NOW)).toEqual({ pay: true, manual: true, countdown: true, progress: false, delayed: false, refund: false, transaction: false, success: false, cancel: true });
    expect(sectionsOf(view({ status: "completed", excessOwed: "2", transactionHash: "0xab", successUrl: "https://shop.example/ok" }), NOW)).toEqual({
      pay: false,
      manual: false,
      countdown: false,
      progress: false,
      delayed: false,
      refund: true,
      transaction: true,
      success: true,
      cancel: false,
    });
    expect(sectionsOf(view({ status: "expired", excessOwed: "1", receiveAddress: null }), NOW).refund).toBe(false);
    expect(sectionsOf(view({ status: "confirming" }), NOW).progress).toBe(true);
  });

  test("network delayed: noticed while the payment waits on its chain, not once it has ended", () => {
    for (const over of [{}, { amountReceived: "4", amountRemaining: "21.5" }, { status: "confirming" }, { expiresAt: "2026-11-23T11:59:59Z" }])
      expect(sectionsOf(view({ ...over, networkDelayed: true } as Partial<PublicPaymentView>), NOW).delayed).toBe(true);
    for (const over of [{ status: "completed", amountReceived: "25.5", amountRemaining: "0" }, { status: "expired" }, { status: "cancelled" }])
      expect(sectionsOf(view({ ...over, networkDelayed: true } as Partial<PublicPaymentView>), NOW).delayed).toBe(false);
    expect(sectionsOf(view({ networkDelayed: false }), NOW).delayed).toBe(false);
    expect(sectionsOf(view(), NOW).delayed).toBe(false);
    for (const { messages } of LANGUAGES) {
      expect(messages.networkDelayedTitle.length).toBeGreaterThan(0);
      expect(format(messages.networkDelayedDetail, { network: "Base" })).toContain("Base");
    }
    expect(en.networkDelayedTitle).toBe("Network delayed");
  });

  // BUG: an excess below REFUND_MIN_AMOUNT offered the refund form, which could only refuse it.
  test("owed back less than the service refunds: no form; the page says to contact the merchant", () => {
    const small = (over: Partial<PublicPaymentView>) => view({ refundMinimum: "0.05", ...over });
    expect(sectionsOf(small({ status: "completed", excessOwed: "0.049999" }), NOW).refund).toBe(false);
    expect(sectionsOf(small({ status: "completed", excessOwed: "0.05" }), NOW).refund).toBe(true);
    expect(sectionsOf(small({ status: "expired", amountReceived: "0.1", excessOwed: "0.1" }), NOW).refund).toBe(true);
    expect(sectionsOf(small({ status: "cancelled", excessOwed: "0.01" }), NOW).refund).toBe(false);
    expect(sectionsOf(small({ status: "cancelled", excessOwed: "1.5", refundMinimum: "2" }), NOW).refund).toBe(false);
    expect(sectionsOf(small({ status: "cancelled", excessOwed: "12", refundMinimum: "2" }), NOW).refund).toBe(true);
    expect(describeStatus(small({ status: "completed", excessOwed: "0.01" }), en, "en", NOW).detail).toBe(
      "Acme has received 25.50 USDC. You sent 0.01 USDC too much, less than this service refunds (the network fee would cost more than it returns): contact Acme about it.",
    );
    expect(describeStatus(small({ status: "expired", amountReceived: "0.01", excessOwed: "0.01" }), en, "en", NOW).detail).toBe(
      "The full amount did not arrive in time. 0.01 USDC is owed back to you, less than this service refunds (the network fee would cost more than it returns): contact Acme about it.",
    );
    expect(describeStatus(small({ status: "failed", excessOwed: "0.01" }), en, "en", NOW).detail).toContain("contact Acme about it");
    // No minimum known (a service that refunds nothing itself): unchanged.
    expect(describeStatus(view({ status: "completed", excessOwed: "0.01", refundMinimum: null }), en, "en", NOW).detail).toContain("give an address below");
  });

  test("paid straight to the merchant (Solana Pay): the QR is the way, no address to type, refunds are the merchant's", () => {
    const direct = (over: Partial<PublicPaymentView>) => view({ directToMerchant: true, ...over });
    expect(describeStatus(direct({}), en, "en", NOW).detail).toBe(en.waitingDetailUri);
    expect(sectionsOf(direct({}), NOW)).toMatchObject({ pay: true, manual: false });
    expect(describeStatus(direct({ status: "completed", excessOwed: "2" }), en, "en", NOW).detail).toBe(
      "Acme has received 25.50 USDC. You sent 2.00 USDC too much, straight to Acme: ask them to return it.",
    );
    expect(describeStatus(direct({ status: "expired", amountReceived: "4", excessOwed: "4" }), en, "en", NOW).detail).toBe(
      "The full amount did not arrive in time. You sent 4.00 USDC straight to Acme: ask them to return it.",
    );
    expect(describeStatus(direct({ status: "cancelled", excessOwed: "4" }), en, "en", NOW).detail).toBe("Acme closed this payment. You sent 4.00 USDC straight to Acme: ask them to return it.");
    expect(sectionsOf(direct({ status: "completed", excessOwed: "2" }), NOW).refund).toBe(false);
    // A payment at an address of its own: the browser wallet is mentioned only when there is one.
    expect(describeStatus(view({ wallet: null }), en, "en", NOW).detail).toBe("Send 25.50 USDC on Base to the address below.");
    expect(describeStatus(view({ wallet: { kind: "eip1193" } as never }), en, "en", NOW).detail).toBe(
      "Send 25.50 USDC on Base to the address below, or pay with your browser wallet.",
    );
  });

  test("cross-chain: pay on the origin chain to the bridge's deposit address; the bridge's progress and refunds are its own", () => {
    const bridge = (bridgeStatus: string) => ({
      network: "anvil-2",
      networkName: "Anvil 2",
      chainId: "31338",
      token: "USDT",
      tokenAddress: "0x0000000000000000000000000000000000000002",
      decimals: 6,
      depositAddress: "0x1111111111111111111111111111111111111111",
      amountToSend: "25.53",
      bridgeStatus,
    });
    const x = (bridgeStatus: string, over: Partial<PublicPaymentView> = {}) =>
      view({ receiveAddress: null, network: "anvil", networkName: "Anvil", crossChain: bridge(bridgeStatus), ...over } as Partial<PublicPaymentView>);
    expect(payingOf(x("awaiting_deposit"))).toEqual({ amount: "25.53", token: "USDT", network: "Anvil 2", address: "0x1111111111111111111111111111111111111111", logo: "anvil-2", decimals: 6 });
    expect(describeStatus(x("awaiting_deposit"), en, "en", NOW)).toEqual({
      phase: "waiting",
      tone: "info",
      title: "Waiting for your payment",
      detail: "Send 25.53 USDT on Anvil 2 to the address below. A bridge delivers 25.50 USDC to Acme on Anvil.",
    });
    expect(sectionsOf(x("awaiting_deposit"), NOW)).toMatchObject({ pay: true, manual: true, countdown: true, refund: false });
    // Seen on the origin chain: on its way (also past the expiry: the bridge was paid in time).
    for (const status of ["deposit_detected", "bridging", "completed"]) {
      expect(phaseOf(x(status), NOW)).toBe("bridging");
      expect(phaseOf(x(status, { expiresAt: "2026-11-23T11:00:00Z" }), NOW)).toBe("bridging");
    }
    expect(describeStatus(x("bridging"), en, "en", NOW).detail).toBe("Your USDT arrived on Anvil 2. The bridge is delivering 25.50 USDC to Acme on Anvil.");
    expect(sectionsOf(x("bridging"), NOW)).toMatchObject({ pay: false, countdown: false, refund: false });
    // The destination leg then confirms and completes as any payment.
    expect(phaseOf(x("completed", { status: "confirming" }), NOW)).toBe("confirming");
    expect(phaseOf(x("completed", { status: "completed", amountReceived: "25.5", amountRemaining: "0" }), NOW)).toBe("completed");
    // The bridge returns the money itself: no refund form, ever.
    expect(describeStatus(x("refunding"), en, "en", NOW)).toMatchObject({ phase: "refunding", tone: "warning" });
    expect(phaseOf(x("refunding", { status: "expired" }), NOW)).toBe("refunding");
    expect(describeStatus(x("refunded", { status: "failed" }), en, "en", NOW)).toMatchObject({ phase: "refunded", title: "Your payment was returned" });
    // BUG: a bridge that failed ended the payment `failed`, and the page said the merchant had cancelled it.
    expect(describeStatus(x("failed", { status: "failed" }), en, "en", NOW)).toMatchObject({ phase: "refunding", title: "Your payment is being returned" });
    expect(phaseOf(x("refunding", { status: "failed" }), NOW)).toBe("refunding");
    expect(phaseOf(x("refunding", { status: "cancelled" }), NOW)).toBe("refunding");
    // BUG: cancelled, then filled by a bridge that cannot be asked to refund: the page said "give an
    // address below" and showed no form. The merchant received it, and returns it.
    const filledAfterCancel = x("completed", { status: "cancelled", amountReceived: "25.5", excessOwed: "25.5" });
    expect(describeStatus(filledAfterCancel, en, "en", NOW).detail).toBe("Acme closed this payment. You sent 25.50 USDC straight to Acme: ask them to return it.");
    expect(sectionsOf(filledAfterCancel, NOW).refund).toBe(false);
    expect(describeStatus(x("completed", { status: "completed", amountReceived: "26", amountRemaining: "0", excessOwed: "0.5" }), en, "en", NOW).detail).toContain("ask them to return it");
    // Cancelled before any deposit: nothing is coming back.
    expect(describeStatus(x("awaiting_deposit", { status: "cancelled" }), en, "en", NOW)).toMatchObject({ phase: "closed", title: "This payment was cancelled" });
    expect(sectionsOf(x("refunded", { status: "failed", excessOwed: "25.5", cancelUrl: "https://shop.example/cart" }), NOW)).toMatchObject({ refund: false, cancel: true });
    expect(describeStatus(x("awaiting_deposit", { status: "expired" }), en, "en", NOW).detail).toBe(
      "Nothing arrived in time. If you sent USDT after the time was up, the bridge returns it to you on Anvil 2. To pay, start again at Acme.",
    );
    expect(phaseOf(x("awaiting_deposit", { expiresAt: "2026-11-23T11:59:59Z" }), NOW)).toBe("expiring");
  });

  test("refund lines, placeholders, time left", () => {
    const refunds = [
      { status: "requested", amount: "2", transactionHash: null, createdAt: "" },
      { status: "confirmed", amount: "1.5", transactionHash: "0x1", createdAt: "" },
      { status: "failed", amount: "3", transactionHash: null, createdAt: "" },
    ] as PublicPaymentView["refunds"];
    expect(refundLines(view({ refunds }), en, "en")).toEqual([
      "Refund of 2.00 USDC: on its way.",
      "Refund of 1.50 USDC: sent.",
      "Refund of 3.00 USDC: failed. You can request it again.",
    ]);
    expect(format("{a} and {b}", { a: 1 })).toBe("1 and {b}");
    expect(timeLeft("2026-11-23T12:14:05Z", NOW)).toEqual({ text: "14:05", duration: "PT14M5S", seconds: 845 });
    expect(timeLeft("2026-11-23T11:00:00Z", NOW).text).toBe("0:00");
  });
});

describe("checkout languages", () => {
  test("Accept-Language picks the best we have (regional variants, q-values); ?lang= wins; English otherwise", () => {
    expect(chooseLanguage("fr-CA,fr;q=0.9,en;q=0.8", undefined).code).toBe("fr");
    expect(chooseLanguage("de-DE,es;q=0.7,en;q=0.3", undefined).code).toBe("es");
    expect(chooseLanguage("de", undefined).code).toBe("en");
    expect(chooseLanguage(undefined, undefined).code).toBe("en");
    expect(chooseLanguage("es", "FR").code).toBe("fr");
    expect(chooseLanguage("es", "xx").code).toBe("es");
  });

  test("every translation keeps every placeholder of the English message", () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const { code, messages } of LANGUAGES) {
      for (const [key, text] of Object.entries(en)) {
        expect({ code, key, placeholders: placeholders(messages[key as keyof typeof en]) }).toEqual({ code, key, placeholders: placeholders(text) });
      }
    }
  });
});

// BUG: every refusal but two said "Try again in a moment", also those a retry never changes
// (dust under the refund minimum, money that went to the merchant directly).
test("a refused refund request says why, in the page's language, and only a failure says try again", () => {
  const view = { merchantName: "Acme" };
  expect(refusalOf(en, "refund_below_minimum", view)).toBe(
    "What is owed back is less than this service refunds (the network fee would cost more than it returns). Contact Acme about it.",
  );
  expect(refusalOf(en, "refund_not_held", view)).toBe("This service does not hold this money: it went to Acme directly. Ask Acme to return it.");
  expect(refusalOf(en, "refund_reverting", view)).toContain("contact Acme");
  expect(refusalOf(en, "nothing_to_refund", view)).toBe(en.refundNothing);
  expect(refusalOf(en, "service_unavailable", view)).toBe(en.refundFailed);
  for (const { messages } of LANGUAGES) {
    for (const code of ["refund_below_minimum", "refund_not_held", "refund_reverting"]) {
      const said = refusalOf(messages, code, view);
      expect(said).toContain("Acme");
      expect(said).not.toContain("{");
    }
  }
});
