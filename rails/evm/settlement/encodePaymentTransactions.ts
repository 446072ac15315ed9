import { type Address, type Hex, encodeFunctionData, erc20Abi, isAddressEqual, prepareEncodeFunctionData } from "viem";
import { paymentSettlementAbi } from "../../../contracts/artifacts/index.ts";
import { PaymentTokenMismatchError } from "./errors.ts";
import type { PaymentIntent } from "./types.ts";

export type EncodePaymentTransactionsParameters = {
  settlementAddress: Address;
  /** Must be `intent.token`. */
  token: Address;
  intent: PaymentIntent;
  /** The operator's signature from `signPaymentIntent`. */
  signature: Hex;
};

export type PaymentTransaction = { to: Address; data: Hex };

export type PaymentTransactions = {
  /** `token.approve(settlement, intent.amount)`: sent first. */
  approve: PaymentTransaction;
  /** `settlement.pay(intent, signature)`: sent once the approval is mined. */
  pay: PaymentTransaction;
};

// Resolved once (viem's prepareEncodeFunctionData): otherwise every encode looks the function up
// by its arguments and hashes its signature again, on every payment presented.
const approveCall = prepareEncodeFunctionData({ abi: erc20Abi, functionName: "approve" });
const payCall = prepareEncodeFunctionData({ abi: paymentSettlementAbi, functionName: "pay" });

/** The two transactions a payer's wallet sends to pay `intent` through the settlement contract. */
export function encodePaymentTransactions(parameters: EncodePaymentTransactionsParameters): PaymentTransactions {
  const { settlementAddress, token, intent, signature } = parameters;
  if (!isAddressEqual(token, intent.token)) throw new PaymentTokenMismatchError(token, intent.token);
  return {
    approve: {
      to: token,
      data: encodeFunctionData({ ...approveCall, args: [settlementAddress, intent.amount] }),
    },
    pay: {
      to: settlementAddress,
      data: encodeFunctionData({ ...payCall, args: [intent, signature] }),
    },
  };
}
