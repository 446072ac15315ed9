/**
 * How a payment's money arrives, as the deposit views and events name it: a deposit
 * address of its own, the settlement contract (or its QR address), a bridge from
 * another chain (a cross-chain payment), or an agent's x402 authorization to the merchant's wallet.
 */
export function depositMethodOf(kind: "payment" | "deposit" | "cross_chain" | "x402"): "deposit_address" | "settlement_contract" | "bridge" | "x402" {
  return kind === "deposit" ? "deposit_address" : kind === "cross_chain" ? "bridge" : kind === "x402" ? "x402" : "settlement_contract";
}
