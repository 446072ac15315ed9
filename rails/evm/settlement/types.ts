import type { Address, Hex } from "viem";

/**
 * The intent the operator signs and the payer's wallet submits to `PaymentSettlement`
 * (the Solidity struct of the same name). Amounts are in the token's smallest unit.
 */
export type PaymentIntent = {
  /** The payment's UUID as bytes32 (see `paymentIdToBytes32`). */
  paymentId: Hex;
  /** Receives `amount - fee`. */
  merchant: Address;
  token: Address;
  /** Total the payer pays, fee included. */
  amount: bigint;
  /** Part of `amount` sent to `feeRecipient`; at most `amount`. */
  fee: bigint;
  feeRecipient: Address;
  /** Unix time in seconds; the intent settles in blocks with timestamp <= deadline. */
  deadline: bigint;
};
