import type { KindRails } from "../registration.ts";
import type { EvidenceSource, PaymentMethod } from "../types.ts";
import { loadX402Credits } from "./loadCredits.ts";

/**
 * x402 payments (`kind: "x402"`): an agent's signed payment (an EIP-3009 authorization on
 * EVM, a partially signed SPL transfer on Solana), verified and settled by the facilitator
 * (`/x402/*`): on EVM through the settlement contract, which pays the merchant's own wallet
 * less the service fee in the same transaction; on Solana straight into the merchant's
 * wallet. Nothing to open or send to, and no address of the service's holds the money (what
 * is owed back is the merchant's to return). Made by the facilitator's settle, not by the
 * create endpoints. The facilitator itself (`agentPayments.ts`: the agent-payment port) loads
 * on its first use: x402's libraries load in the API and the worker only.
 */
export const x402Method: PaymentMethod = {
  kind: "x402",
  verifiedInstead: "an x402 payment is settled by the facilitator (POST /x402/settle); there is nothing to submit",
};

/**
 * Its credit is what the settlement transaction paid out (the settlement contract's
 * `AuthorizationSettled` log on EVM, the balance rise of the merchant wallet's token account
 * on Solana), read by the worker that submitted it (`x402_settlements`); confirmations count
 * from the chain's indexed head.
 */
export const x402Evidence: EvidenceSource = {
  name: "x402",
  loadCredits: (ctx, payments) => loadX402Credits(ctx, payments),
};

/** x402 payments: a payment method, its evidence and its facilitator; everything on the payment's chain is its network's. */
export const x402Rails: KindRails = {
  method: x402Method,
  evidence: x402Evidence,
  agentPayments: () => (require("./agentPayments.ts") as typeof import("./agentPayments.ts")).x402AgentPayments,
};
