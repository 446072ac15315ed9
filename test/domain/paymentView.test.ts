import { describe, expect, test } from "bun:test";
import { eventDataJson, eventEnvelope } from "../../domain/eventPayload.ts";
import { eventPaymentView, paymentStatusView, paymentView, settlementView, withoutPrivateFields, type PaymentRecord } from "../../domain/paymentView.ts";

const at = (s: string) => new Date(s);
const record: PaymentRecord = {
  id: "6f1c0f5e-2f43-4c8e-9d3b-3f2c4b1d9a10",
  kind: "deposit",
  status: "confirming",
  amount: 10_500_000n,
  amountReceived: 12_000_000n,
  amountRemaining: 0n,
  excessOwed: 1_500_000n,
  lateAmount: 250_000n,
  feeAmount: 105_000n,
  currency: "USDC",
  tokenSymbol: "USDC",
  tokenAddress: "0x0000000000000000000000000000000000000001",
  tokenDecimals: 6,
  chainId: "8453",
  receiveAddress: "0x00000000000000000000000000000000000000aa",
  contractAddress: null,
  merchantWallet: "0x00000000000000000000000000000000000000bb",
  feeRecipient: "0x00000000000000000000000000000000000000cc",
  orderId: "order-7",
  customerEmail: "buyer@example.com",
  callbackUrl: "https://merchant.example/hook",
  successUrl: "https://merchant.example/ok",
  cancelUrl: null,
  metadata: { cart: "42" },
  agentId: null,
  agentOwner: null,
  fiatAmount: "9.70",
  fiatCurrency: "EUR",
  exchangeRate: "0.9238",
  isTest: false,
  closedReason: null,
  bridgeStatus: null,
  confirmations: 2,
  completingTxHash: "0xabc",
  detectedAt: at("2026-01-02T03:04:05.000Z"),
  confirmedAt: null,
  expiresAt: at("2026-01-02T04:04:05.000Z"),
  createdAt: at("2026-01-02T03:00:00.000Z"),
  updatedAt: at("2026-01-02T03:04:06.000Z"),
};

const context = { network: { shortName: "base", requiredConfirmations: 5 }, paymentUri: "ethereum:x", walletInstructions: { contractCall: { fn: "splitPayment" } }, checkoutUrl: "https://pay.example/pay/1" };

describe("the one payment serialiser", () => {
  test("an event carries exactly the fields it carried before the serialisers were one (docs/webhooks.md)", () => {
    expect(eventPaymentView(record)).toEqual({
      id: record.id,
      status: "confirming",
      amount: "10.5",
      amountReceived: "12",
      amountRemaining: "0",
      excessOwed: "1.5",
      lateAmount: "0.25",
      currency: "USDC",
      token: "USDC",
      tokenAddress: record.tokenAddress,
      decimals: 6,
      chainId: "8453",
      confirmations: 2,
      transactionHash: "0xabc",
      receiveAddress: record.receiveAddress,
      depositMethod: "deposit_address",
      orderId: "order-7",
      metadata: { cart: "42" },
      agentId: null,
      agentOwner: null,
      fiatAmount: "9.70",
      fiatCurrency: "EUR",
      isTest: false,
      closedReason: null,
      bridgeStatus: null,
      detectedAt: "2026-01-02T03:04:05.000Z",
      confirmedAt: null,
      expiresAt: "2026-01-02T04:04:05.000Z",
      createdAt: "2026-01-02T03:00:00.000Z",
      updatedAt: "2026-01-02T03:04:06.000Z",
    });
  });

  test("an event never carries the customer's e-mail, the merchant's URLs or the exchange rate", () => {
    const view = eventPaymentView(record) as Record<string, unknown>;
    for (const field of ["customerEmail", "callbackUrl", "successUrl", "cancelUrl", "exchangeRate", "contractAddress", "checkoutUrl"]) expect(field in view).toBe(false);
  });

  test("the API view has the event's values for the fields both show, and never lateAmount or depositMethod", () => {
    const api = paymentView(record, context) as Record<string, unknown>;
    const event = eventPaymentView(record) as Record<string, unknown>;
    const shared = Object.keys(event).filter((k) => k !== "lateAmount" && k !== "depositMethod");
    for (const field of shared) expect([field, api[field]]).toEqual([field, event[field]]);
    expect("lateAmount" in api).toBe(false);
    expect("depositMethod" in api).toBe(false);
  });

  test("the API view adds the network, the rail's parts, the settlement and the SDK's fields", () => {
    const api = paymentView(record, context);
    expect(api).toMatchObject({
      network: "base",
      requiredConfirmations: 5,
      paymentUri: "ethereum:x",
      checkoutUrl: "https://pay.example/pay/1",
      contractCall: { fn: "splitPayment" },
      customerEmail: "buyer@example.com",
      exchangeRate: "0.9238",
      totalAmount: "10.5",
      merchantWallet: record.merchantWallet,
      recipientWallet: record.merchantWallet,
      settlement: { network: "base", status: "confirming", merchantAmount: "10.395", feeAmount: "0.105", contractAddress: "" },
    });
    expect(paymentView(record, { ...context, network: undefined })).toMatchObject({ network: null, requiredConfirmations: null, settlement: { network: "8453" } });
  });

  test("the settlement status names each phase", () => {
    const phase = (status: PaymentRecord["status"]) => settlementView({ ...record, status }, undefined).status;
    expect([phase("completed"), phase("confirming"), phase("pending"), phase("expired")]).toEqual(["settled", "confirming", "awaiting_payment", "not_settled"]);
  });

  test("the status view is the API view's first fields", () => {
    const api = paymentView(record, context) as Record<string, unknown>;
    for (const [field, value] of Object.entries(paymentStatusView(record))) expect([field, api[field]]).toEqual([field, value]);
  });

  test("a public-key read drops the e-mail, the callback URL and the metadata", () => {
    const view = withoutPrivateFields(paymentView(record, context)) as Record<string, unknown>;
    expect(["customerEmail", "callbackUrl", "metadata"].filter((k) => k in view)).toEqual([]);
    expect(view.successUrl).toBe("https://merchant.example/ok");
  });

  test("an event's data: the payment view plus extra, bigints as decimal strings", () => {
    expect(JSON.parse(eventDataJson(record))).toEqual({ payment: JSON.parse(JSON.stringify(eventPaymentView(record))) });
    expect(JSON.parse(eventDataJson(record, { refund: { amount: 1_500_000n, txHash: "0xdef" } })).refund).toEqual({ amount: "1500000", txHash: "0xdef" });
  });

  test("the envelope is Standard Webhooks' type, timestamp and data, with the id, mode and payment", () => {
    const event = { id: "e1", type: "payment.completed", createdAt: at("2026-01-02T03:05:00.000Z"), mode: "live", paymentId: record.id, payload: { payment: {} } };
    expect(eventEnvelope(event)).toEqual({ id: "e1", type: "payment.completed", timestamp: "2026-01-02T03:05:00.000Z", mode: "live", paymentId: record.id, data: { payment: {} } });
  });
});
