import type { Address, Hex } from "viem";
import { signTypedData } from "viem/accounts";
import { paymentIntentTypes, settlementDomain } from "./settlementDomain.ts";
import type { PaymentIntent } from "./types.ts";

export type SignPaymentIntentParameters = {
  /** Key of the settlement contract's `operator`. */
  operatorPrivateKey: Hex;
  chainId: number;
  settlementAddress: Address;
  intent: PaymentIntent;
};

/** The operator's 65-byte EIP-712 signature over `intent`, as `PaymentSettlement.pay` expects it. */
export function signPaymentIntent(parameters: SignPaymentIntentParameters): Promise<Hex> {
  const { operatorPrivateKey, chainId, settlementAddress, intent } = parameters;
  return signTypedData({
    privateKey: operatorPrivateKey,
    domain: settlementDomain(chainId, settlementAddress),
    types: paymentIntentTypes,
    primaryType: "PaymentIntent",
    message: intent,
  });
}
