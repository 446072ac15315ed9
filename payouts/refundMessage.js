/*
 * The text a paying address signs to send a payment's refund to another address: EIP-191
 * `personal_sign` on EVM chains, `signMessage` on Solana. Defined once, here, in plain
 * JavaScript: the server checks signatures against it, and the hosted checkout page
 * (which is served this very file) asks the customer's wallet to sign it. A change of its
 * words is a new version: signatures of the old text no longer verify.
 */

/** The version the text names; part of what is signed. */
export const REFUND_MESSAGE_VERSION = 1;

/**
 * The exact text for a refund of up to `amount` (a decimal string in token units, written
 * as the API writes amounts: "2", "2.5") of `token` from payment `paymentId` on `network`
 * (its display name) with chain id `chainId`, to `to` (the address as the API returns it).
 */
export function refundMessage({ paymentId, to, amount, token, network, chainId }) {
  return [
    `Refund request (version ${REFUND_MESSAGE_VERSION})`,
    "",
    "I paid the payment below and ask that its refund be sent to another address.",
    "",
    `Payment: ${String(paymentId).toLowerCase()}`,
    `Amount: up to ${amount} ${token}`,
    `Network: ${network} (chain ${chainId})`,
    `Send to: ${to}`,
  ].join("\n");
}
