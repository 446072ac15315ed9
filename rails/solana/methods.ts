import type { CreatableMethod } from "../types.ts";
import { lib } from "./library.ts";
import { supportsKind, unavailable } from "./unavailable.ts";

/** What both Solana methods share: a payment URI and wallet details, availability by kind, submissions checked alike. */
const solanaMethod = (kind: "payment" | "deposit"): CreatableMethod => ({
  kind,
  supports: (network) => supportsKind(network, kind),
  unavailable: (config, network) => unavailable(config, network, kind),
  // A Solana Pay transfer pays the merchant's wallet whole, and a deposit is swept whole: no
  // fee is collected, so none is shown (docs/decisions/solana-pay-fee.md).
  collectsFee: false,
  prepare: (ctx, request) => lib().preparePayment(ctx, request),
  paymentUri: (payment) => lib().paymentUri(payment),
  walletInstructions: (payment, network) => lib().walletInstructions(payment, network),
  contract: (network) => lib().contractDescription(network),
  verifySubmission: (ctx, payment, network, transaction) => lib().verifySubmission(ctx, payment, network, transaction),
});

/**
 * Solana Pay: a transfer to the merchant's own wallet carrying a per-payment reference. The
 * service holds none of it, and there is no browser-wallet button yet: the checkout page shows the QR code.
 */
export const solanaPay: CreatableMethod = solanaMethod("payment");

/**
 * A deposit address: a per-payment key (SLIP-0010 from a seed only the worker holds, derived
 * ahead of need into a pool the API hands out from) whose token account the operator sweeps.
 */
export const solanaDepositAddress: CreatableMethod = {
  ...solanaMethod("deposit"),
  replenish: (ctx) => lib().replenishDepositPool(ctx),
  holdsFunds: () => true,
  ownAddresses: (payment) => lib().depositAccounts(payment),
};
