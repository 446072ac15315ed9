import { getAddress, zeroAddress, type Address } from "viem";
import { SPLIT_BPS, type SplitPaymentCall } from "../../../domain/splitPayment.ts";

export type SplitPaymentCallParameters = {
  settlementAddress: Address;
  paymentId: string;
  token: Address;
  /** Total the payer pays, smallest units. */
  amount: bigint;
  merchantWallet: Address;
  /** The service's fee wallet: receives `feeBps` of the amount (rounded down, as the intent's fee). */
  feeRecipient: Address;
  feeBps: number;
};

/**
 * The `splitPayment` call the service issues for a contract payment: the merchant as
 * recipient 1, the service's fee wallet as recipient 2 at the fee's basis points, no third
 * recipient. Approve exactly the amount. Addresses checksummed, as the SDK sends them back.
 */
export function splitPaymentCall(p: SplitPaymentCallParameters): SplitPaymentCall {
  if (!Number.isInteger(p.feeBps) || p.feeBps < 0 || p.feeBps > SPLIT_BPS) throw new RangeError(`fee of ${p.feeBps} basis points`);
  return {
    contractAddress: getAddress(p.settlementAddress),
    tokenAddress: getAddress(p.token),
    approvalAmount: p.amount.toString(),
    params: {
      token: getAddress(p.token),
      amount: p.amount.toString(),
      paymentId: p.paymentId.toLowerCase(),
      recipient1: getAddress(p.merchantWallet),
      recipient2: getAddress(p.feeRecipient),
      recipient3: zeroAddress,
      recipient1Percentage: SPLIT_BPS - p.feeBps,
      recipient2Percentage: p.feeBps,
      recipient3Percentage: 0,
    },
  };
}
