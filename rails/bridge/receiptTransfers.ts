import { erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import { ServiceUnavailableError } from "../../domain/errors.ts";

export type ReceiptTransfer = { logIndex: number; from: Address; to: Address; value: bigint };
export type ReceiptTransfers = { blockNumber: bigint; transfers: ReceiptTransfer[] };

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * The transfers of `token` a transaction made, from its receipt on the chain: what a leg
 * of a bridge really moved, whatever the bridge says. Null when the chain holds no receipt
 * (not mined yet, reorged away, or not an EVM hash at all); a reverted transaction moved
 * nothing. Throws ServiceUnavailableError when the chain cannot be read.
 */
export async function receiptTransfers(client: PublicClient, txHash: string, token: string): Promise<ReceiptTransfers | null> {
  if (!TX_HASH.test(txHash)) return null;
  const receipt = await client.getTransactionReceipt({ hash: txHash.toLowerCase() as Hex }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError") return null;
    throw new ServiceUnavailableError(`Could not read transaction ${txHash}: ${error.message.split("\n")[0]}`);
  });
  if (!receipt) return null;
  if (receipt.status !== "success") return { blockNumber: receipt.blockNumber, transfers: [] };
  const tokenAddress = getAddress(token);
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => isAddressEqual(log.address, tokenAddress))
    .map((log) => ({ logIndex: log.logIndex, from: log.args.from, to: log.args.to, value: log.args.value }));
  return { blockNumber: receipt.blockNumber, transfers };
}
