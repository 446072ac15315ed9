import { expect, test } from "bun:test";
import { REFUND_MESSAGE_VERSION, refundMessage } from "../../payouts/index.ts";
import { messageOf } from "../../payouts/refundRequestView.ts";

const fields = {
  paymentId: "3F1C2B9A-0000-4000-8000-00000000ABCD",
  to: "0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B",
  amount: "2",
  token: "USDC",
  network: "Base",
  chainId: "8453",
};

test("the refund message is one exact, versioned text naming the payment, amount, token, network and destination", () => {
  expect(REFUND_MESSAGE_VERSION).toBe(1);
  expect(refundMessage(fields)).toBe(
    [
      "Refund request (version 1)",
      "",
      "I paid the payment below and ask that its refund be sent to another address.",
      "",
      "Payment: 3f1c2b9a-0000-4000-8000-00000000abcd",
      "Amount: up to 2 USDC",
      "Network: Base (chain 8453)",
      "Send to: 0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B",
    ].join("\n"),
  );
});

test("each field changes the text: a signature over one request is no signature over another", () => {
  const base = refundMessage(fields);
  for (const [field, value] of Object.entries({ paymentId: "3f1c2b9a-0000-4000-8000-00000000abce", to: "0x0000000000000000000000000000000000000001", amount: "2.5", token: "USDT", network: "Base Sepolia", chainId: "84532" })) {
    expect([field, refundMessage({ ...fields, [field]: value }) === base]).toEqual([field, false]);
  }
});

test("the server's message of a request writes the amount as the API does (smallest units to the token's decimals)", () => {
  const request = { paymentId: fields.paymentId, toAddress: fields.to, amount: 2_500_000n };
  const payment = { tokenDecimals: 6, tokenSymbol: "USDC", chainId: "8453" };
  expect(messageOf(request, payment, { name: "Base" })).toBe(refundMessage({ ...fields, amount: "2.5" }));
  expect(messageOf({ ...request, amount: 1n }, payment, { name: "Base" })).toContain("Amount: up to 0.000001 USDC");
  expect(messageOf({ ...request, amount: 10n ** 18n }, { ...payment, tokenDecimals: 18 }, { name: "Base" })).toContain("Amount: up to 1 USDC");
});

test("the checkout page is served the very same file (no copy to drift)", async () => {
  const { loadCheckoutAssets } = await import("../../api/checkout/checkoutAssets.ts");
  const assets = loadCheckoutAssets();
  const served = assets.get(assets.version, "refundMessage.js");
  expect(served?.body).toBe(await Bun.file(new URL("../../payouts/refundMessage.js", import.meta.url)).text());
  expect(served?.contentType).toBe("text/javascript; charset=utf-8");
});
