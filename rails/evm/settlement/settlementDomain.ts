import { type Address, type TypedDataDomain, getAddress } from "viem";

/** EIP-712 types of `PaymentSettlement`'s `PaymentIntent`, field order as in the contract. */
export const paymentIntentTypes = {
  PaymentIntent: [
    { name: "paymentId", type: "bytes32" },
    { name: "merchant", type: "address" },
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "fee", type: "uint256" },
    { name: "feeRecipient", type: "address" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The EIP-712 domain of the `PaymentSettlement` deployed at `verifyingContract` on `chainId`. */
export function settlementDomain(chainId: number, verifyingContract: Address) {
  return {
    name: "PaymentSettlement",
    version: "1",
    chainId,
    verifyingContract: getAddress(verifyingContract),
  } as const satisfies TypedDataDomain;
}
