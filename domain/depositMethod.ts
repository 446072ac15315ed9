/**
 * How a payment's money arrives, as the deposit views and events name it: a deposit
 * address of its own, the settlement contract (or its QR address), or a bridge from
 * another chain (a cross-chain payment).
 */
export function depositMethodOf(kind: "payment" | "deposit" | "cross_chain"): "deposit_address" | "settlement_contract" | "bridge" {
  return kind === "deposit" ? "deposit_address" : kind === "cross_chain" ? "bridge" : "settlement_contract";
}
