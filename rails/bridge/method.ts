import type { PaymentMethod } from "../types.ts";

/**
 * Cross-chain payments (`kind: "cross_chain"`): the customer pays a bridge's deposit address
 * on another chain (the creation response and /payments/cross-chain/status show it) and the
 * bridge fills the merchant's wallet on the payment's own (EVM) chain. The payment row is that
 * destination leg: it has nothing to open or send to, the service holds none of its money
 * (the bridge returns what it holds on the origin chain), and it is made by its own service
 * (`createCrossChainPayment`, which takes the bridge's quote). Its chain is its network's.
 */
export const bridgeMethod: PaymentMethod = {
  kind: "cross_chain",
  verifiedInstead: "a cross-chain payment is verified from its bridge (GET /payments/cross-chain/status/{paymentId}); there is nothing to submit",
};
