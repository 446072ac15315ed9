import type { CreatableMethod } from "../types.ts";
import { checkoutWallet } from "./checkoutWallet.ts";
import { contractDescription } from "./contractDescription.ts";
import { preparePayment } from "./preparePayment.ts";
import { supportsKind, unavailable } from "./unavailable.ts";
import { verifySubmission } from "./verifySubmission.ts";
import { paymentUri, walletInstructions } from "./walletInstructions.ts";

/**
 * The two EVM methods share their code and differ by kind: both receive at a CREATE2
 * forwarder address the operator sweeps (a contract payment's takes plain transfers too).
 */
const evmMethod = (kind: "payment" | "deposit"): CreatableMethod => ({
  kind,
  supports: (network) => supportsKind(network, kind),
  unavailable: (config, network) => unavailable(config, network, kind),
  // The settlement contract pays the fee out with the merchant's share; a deposit's sweep moves it whole.
  collectsFee: kind === "payment",
  prepare: (ctx, request) => preparePayment(ctx.config, request),
  paymentUri,
  walletInstructions,
  checkoutWallet,
  holdsFunds: (payment) => payment.receiveAddress !== null,
  ownAddresses: (payment) => (payment.receiveAddress ? [payment.receiveAddress] : []),
  contract: contractDescription,
  verifySubmission,
});

/** A direct payment through PaymentSettlement (an EIP-712 intent the contract checks). */
export const evmContractPayment = evmMethod("payment");
/** A deposit address: a CREATE2 forwarder per payment, swept by the operator. */
export const evmDepositAddress = evmMethod("deposit");
