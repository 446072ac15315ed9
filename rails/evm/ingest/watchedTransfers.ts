import { erc20Abi, type Address, type Hash, type PublicClient } from "viem";
import type { TransferLog } from "./transferRow.ts";

/** Topic arrays providers accept in one `eth_getLogs` stay well under their limits at this size. */
const ADDRESSES_PER_REQUEST = 500;

const transferEvent = erc20Abi.find((item) => item.type === "event" && item.name === "Transfer")!;

/**
 * The Transfers of `tokens` into `watched` addresses in one block, asked of the node with
 * the recipients as a topic filter: the chain's other transfers never leave the node, so
 * they cost no bytes, no CPU and no rows here. By block hash, so a reorged block's logs
 * are never mixed with its replacement's.
 */
export async function watchedTransfers(
  client: PublicClient,
  block: { hash: Hash; number: bigint; timestamp: bigint },
  chainId: number,
  tokens: readonly Address[],
  watched: readonly Address[],
): Promise<TransferLog[]> {
  const logs = [];
  for (let i = 0; i < watched.length; i += ADDRESSES_PER_REQUEST) {
    logs.push(
      ...(await client.getLogs({
        address: [...tokens],
        event: transferEvent,
        args: { to: watched.slice(i, i + ADDRESSES_PER_REQUEST) as Address[] },
        blockHash: block.hash,
        strict: true,
      })),
    );
  }
  return logs.map((log) => ({
    chainId,
    blockNumber: block.number,
    blockHash: block.hash,
    txHash: log.transactionHash,
    logIndex: log.logIndex,
    token: log.address,
    from: log.args.from,
    to: log.args.to,
    amount: log.args.value,
    timestamp: block.timestamp,
  }));
}
