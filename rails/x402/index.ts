import type { KindRails } from "../registration.ts";
import type { EvidenceSource, PaymentMethod } from "../types.ts";
import { loadX402Credits } from "./loadCredits.ts";

export { buildFacilitator, x402Networks } from "./facilitator.ts";
export { readOnlyEvmSigner } from "./evmSigners.ts";

/**
 * x402 payments (`kind: "x402"`): an agent's EIP-3009 authorization, verified and settled by
 * the facilitator (`/x402/*`) through the settlement contract, which pays the merchant's own
 * wallet less the service fee in the same transaction: nothing to open or send to, and no
 * address of the service's holds the money (what is owed back is the merchant's to return). Made by the facilitator's settle, not by the create endpoints.
 */
export const x402Method: PaymentMethod = {
  kind: "x402",
  verifiedInstead: "an x402 payment is settled by the facilitator (POST /x402/settle); there is nothing to submit",
};

/**
 * Its credit is the settlement contract's `AuthorizationSettled` log, read from the receipt by the worker
 * that submitted it (`x402_settlements`); confirmations count from the chain's indexed head.
 */
export const x402Evidence: EvidenceSource = {
  name: "x402",
  loadCredits: (ctx, payments) => loadX402Credits(ctx, payments),
};

/** x402 payments: a payment method and its evidence; everything on the payment's chain is its network's. */
export const x402Rails: KindRails = { method: x402Method, evidence: x402Evidence };
