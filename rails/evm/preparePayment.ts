import { getAddress, type Address } from "viem";
import type { Config } from "../../config/index.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import type { PreparedPayment, PrepareRequest } from "../types.ts";
import { intentSignerOf } from "./intentSignerOf.ts";
import { computeDepositAddress, paymentIdToBytes32, splitPaymentCall } from "./settlement/index.ts";
import { unavailableReason } from "./unavailable.ts";

/**
 * The EVM columns of a new payment: its counterfactual deposit address (CREATE2 from
 * the factory, the payment id and the merchant's wallet: no key per address), and for
 * a contract payment the intent signer's EIP-712 intent, which the contract checks before
 * it pays merchant and fee recipient, and the `splitPayment` call the client SDK makes
 * instead (same recipients and shares, no signature). Deposit payments are paid by plain
 * transfers only.
 */
export async function preparePayment(config: Config, request: PrepareRequest): Promise<PreparedPayment> {
  const { network, kind } = request;
  const unavailable = unavailableReason(config, kind);
  if (unavailable) throw new ServiceUnavailableError(unavailable);
  const feeRecipient = getAddress(request.feeRecipient);
  const receiveAddress = computeDepositAddress({
    factory: network.forwarderFactory as Address,
    paymentId: request.paymentId,
    merchantWallet: request.merchantWallet as Address,
  });
  if (kind === "deposit") return { receiveAddress, contractAddress: null, feeRecipient, intentSignature: null, intentDeadline: null, contractCall: null };

  const deadline = Math.floor(request.expiresAt.getTime() / 1000);
  const intentSignature = await intentSignerOf(config).sign({
    chainId: Number(network.chainId),
    settlementAddress: network.settlementContract as Address,
    intent: {
      paymentId: paymentIdToBytes32(request.paymentId),
      merchant: request.merchantWallet as Address,
      token: request.token.address as Address,
      amount: request.amount,
      fee: request.fee,
      feeRecipient,
      deadline: BigInt(deadline),
    },
  });
  const contractCall = splitPaymentCall({
    settlementAddress: network.settlementContract as Address,
    paymentId: request.paymentId,
    token: request.token.address as Address,
    amount: request.amount,
    merchantWallet: request.merchantWallet as Address,
    feeRecipient,
    feeBps: request.feeBps,
  });
  return { receiveAddress, contractAddress: network.settlementContract, feeRecipient, intentSignature, intentDeadline: new Date(deadline * 1000), contractCall };
}
