import { erc20Abi, getAddress, type Address, type PublicClient } from "viem";

/** What a payment's deposit address holds of the payment's token, read from the chain (not our records). */
export function depositBalance(client: PublicClient, payment: { tokenAddress: string; receiveAddress: string | null }): Promise<bigint> {
  if (!payment.receiveAddress) return Promise.resolve(0n);
  return client.readContract({ address: getAddress(payment.tokenAddress), abi: erc20Abi, functionName: "balanceOf", args: [payment.receiveAddress as Address] });
}
