import type { Address } from "viem";
import type { Network } from "../../config/index.ts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { paymentIntentTypes, settlementDomain } from "./settlement/index.ts";

/** The settlement contract of a network for wallets and checkout pages: address, ABI and EIP-712 domain; null if not deployed. */
export function contractDescription(network: Network) {
  if (!network.settlementContract) return null;
  const address = network.settlementContract as Address;
  return {
    chainId: network.chainId,
    network: network.shortName,
    contractAddress: address,
    forwarderFactory: network.forwarderFactory,
    abi: paymentSettlementAbi,
    eip712: { domain: { ...settlementDomain(Number(network.chainId), address) }, types: paymentIntentTypes, primaryType: "PaymentIntent" },
  };
}
