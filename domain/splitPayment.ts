/**
 * The settlement contract's `splitPayment` as the published client SDK (`coinley-pay`) calls
 * it: its struct's member names, and the call the service issues per payment (the payment
 * view's `contractCall`). The service stores what it issued with the payment; a
 * `SplitPaymentExecuted` event credits the payment only when it carries exactly these params.
 */

/** 100% in basis points: the three percentages sum to exactly this. */
export const SPLIT_BPS = 10_000;

/** The struct's members, JSON-safe: `amount` an integer string in the token's smallest units, percentages in basis points. */
export type SplitPaymentParams = {
  token: string;
  amount: string;
  paymentId: string;
  /** The merchant's settlement wallet: gets what the other shares leave. */
  recipient1: string;
  /** The service's fee wallet (the merchant's own wallet when there is no fee). */
  recipient2: string;
  /** Unused: the zero address at 0%. */
  recipient3: string;
  recipient1Percentage: number;
  recipient2Percentage: number;
  recipient3Percentage: number;
};

/** What the SDK reads as `payment.contractCall`: approve `approvalAmount` of `tokenAddress` to `contractAddress`, then call `splitPayment(params)`. */
export type SplitPaymentCall = {
  contractAddress: string;
  tokenAddress: string;
  /** Integer string, the token's smallest units. */
  approvalAmount: string;
  params: SplitPaymentParams;
};

/**
 * The shares the contract pays for `amount` (smallest units): recipients 2 and 3 get their
 * percentage rounded down, recipient 1 the rest, so the three add up to `amount` exactly.
 */
export function splitShares(amount: bigint, params: Pick<SplitPaymentParams, "recipient2Percentage" | "recipient3Percentage">): [bigint, bigint, bigint] {
  const share2 = (amount * BigInt(params.recipient2Percentage)) / BigInt(SPLIT_BPS);
  const share3 = (amount * BigInt(params.recipient3Percentage)) / BigInt(SPLIT_BPS);
  return [amount - share2 - share3, share2, share3];
}
