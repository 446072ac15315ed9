import { erc20Abi, getAddress, type Address, type PublicClient } from "viem";
import type { Network } from "../../config/types.ts";
import { finalizedHead } from "./chainHead.ts";
import { evmClient } from "./client.ts";

/** What a payment's deposit address holds of the payment's token, read from the chain (not our records). */
export function depositBalance(client: PublicClient, payment: { tokenAddress: string; receiveAddress: string | null }): Promise<bigint> {
  if (!payment.receiveAddress) return Promise.resolve(0n);
  return client.readContract({ address: getAddress(payment.tokenAddress), abi: erc20Abi, functionName: "balanceOf", args: [payment.receiveAddress as Address] });
}

/**
 * Native coin at a payment's deposit address that is final and still there: the balance in
 * the chain's final block (only what no reorg can take back is forwarded, as a token sweep
 * waits for its completing block), at most the latest one (a sweep not final yet took it).
 */
export async function nativeDepositBalance(network: Network, payment: { receiveAddress: string | null }, timeoutMs: number): Promise<bigint> {
  if (!payment.receiveAddress) return 0n;
  const client = evmClient(network, timeoutMs);
  const address = payment.receiveAddress as Address;
  const [final, latest] = await Promise.all([finalizedHead(network, timeoutMs).then((blockNumber) => client.getBalance({ address, blockNumber })), client.getBalance({ address })]);
  return final < latest ? final : latest;
}
