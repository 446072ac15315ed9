import { BlockNotFoundError, erc20Abi, type Address, type Hash, type PublicClient } from "viem";
import type { TransferLog } from "./transferRow.ts";

/** Topic arrays providers accept in one `eth_getLogs` stay well under their limits at this size. */
const ADDRESSES_PER_REQUEST = 500;

const transferEvent = erc20Abi.find((item) => item.type === "event" && item.name === "Transfer")!;

/** The node behind the URL did not know the block yet (its logs would read as none). */
export class BlockUnknownToNodeError extends Error {
  override name = "BlockUnknownToNodeError";
}

/**
 * The Transfers of `tokens` into `watched` addresses in one block, asked of the node with
 * the recipients as a topic filter: the chain's other transfers never leave the node, so
 * they cost no bytes, no CPU and no rows here. By block hash, so a reorged block's logs
 * are never mixed with its replacement's. `client` batches: the block itself is asked in
 * the same request, and a node that does not know it (a provider backend behind the one
 * that announced it answers `[]` for its logs) fails the read instead of vouching for none.
 */
export async function watchedTransfers(
  client: PublicClient,
  block: { hash: Hash; number: bigint; timestamp: bigint },
  chainId: number,
  tokens: readonly Address[],
  watched: readonly Address[],
): Promise<TransferLog[]> {
  const chunks: Address[][] = [];
  for (let i = 0; i < watched.length; i += ADDRESSES_PER_REQUEST) chunks.push(watched.slice(i, i + ADDRESSES_PER_REQUEST) as Address[]);
  const [known, ...pages] = await Promise.all([
    client.getBlock({ blockHash: block.hash }).then(
      () => true,
      (error: Error) => (error instanceof BlockNotFoundError ? false : Promise.reject(error)),
    ),
    ...chunks.map((to) => client.getLogs({ address: [...tokens], event: transferEvent, args: { to }, blockHash: block.hash, strict: true })),
  ]);
  if (!known) throw new BlockUnknownToNodeError(`the node does not know block ${block.number} (${block.hash}) yet`);
  return pages.flat().map((log) => ({
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
