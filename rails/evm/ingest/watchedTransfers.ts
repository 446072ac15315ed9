import { BlockNotFoundError, erc20Abi, type Address, type Hash, type PublicClient } from "viem";
import type { TransferLog } from "./transferRow.ts";

/** Topic arrays providers accept in one `eth_getLogs` stay well under their limits at this size. */
const ADDRESSES_PER_REQUEST = 500;
/**
 * `eth_getLogs` calls per batched HTTP request (~350 KB of topics), each request with its own
 * check of the block: providers cap a request's size and calls (anvil refused 140 at once).
 */
const LOGS_PER_BATCH = 10;

const transferEvent = erc20Abi.find((item) => item.type === "event" && item.name === "Transfer")!;

/** Batching clients of one node, by lane: the calls made on one lane together go in one request. */
export type Lanes = (lane: number) => PublicClient;

/** The node behind the URL did not know the block yet (its logs would read as none). */
export class BlockUnknownToNodeError extends Error {
  override name = "BlockUnknownToNodeError";
}

/**
 * The Transfers of `tokens` into `watched` addresses in one block, asked of the node with
 * the recipients as a topic filter: the chain's other transfers never leave the node, so
 * they cost no bytes, no CPU and no rows here. By block hash, so a reorged block's logs
 * are never mixed with its replacement's. The clients batch: the block itself is asked in
 * each request, and a node that does not know it (a provider backend behind the one
 * that announced it answers `[]` for its logs) fails the read instead of vouching for none.
 */
export async function watchedTransfers(
  lane: Lanes,
  block: { hash: Hash; number: bigint; timestamp: bigint },
  chainId: number,
  tokens: readonly Address[],
  watched: readonly Address[],
): Promise<TransferLog[]> {
  const logs = await checkedLogs(
    watched,
    lane,
    async (client) => {
      const known = await client.getBlock({ blockHash: block.hash }).then(
        () => true,
        (error: Error) => (error instanceof BlockNotFoundError ? false : Promise.reject(error)),
      );
      if (!known) throw new BlockUnknownToNodeError(`the node does not know block ${block.number} (${block.hash}) yet`);
    },
    (client, to) => client.getLogs({ address: [...tokens], event: transferEvent, args: { to }, blockHash: block.hash, strict: true }),
  );
  return logs.map((log) => transferLog(chainId, log, block.timestamp));
}

/**
 * The late-money scan: the Transfers of `tokens` into `watched` addresses in blocks
 * `from`..`to.number`, asked by number of a node whose chain holds the indexer's block `to`
 * (asked in the same request; a node on another branch, or not there yet, fails the read),
 * so every transfer found is in an ancestor of a block the indexer has: a reorg that removes
 * it removes that block too, and with it the rows written for it. Each transfer keeps its own
 * block; the times of the blocks that hold one are asked for after.
 */
export async function watchedTransfersInRange(
  lane: Lanes,
  range: { from: bigint; to: { hash: Hash; number: bigint } },
  chainId: number,
  tokens: readonly Address[],
  watched: readonly Address[],
): Promise<TransferLog[]> {
  const logs = await checkedLogs(
    watched,
    lane,
    async (client) => {
      const head = await client.getBlock({ blockNumber: range.to.number }).catch((error: Error) => (error instanceof BlockNotFoundError ? null : Promise.reject(error)));
      if (head?.hash !== range.to.hash) throw new BlockUnknownToNodeError(`the node's block ${range.to.number} is not ${range.to.hash} (yet)`);
    },
    (client, to) => client.getLogs({ address: [...tokens], event: transferEvent, args: { to }, fromBlock: range.from, toBlock: range.to.number, strict: true }),
  );
  const times = new Map<Hash, bigint>();
  await Promise.all([...new Set(logs.map((log) => log.blockHash))].map(async (hash) => times.set(hash, (await lane(0).getBlock({ blockHash: hash })).timestamp)));
  return logs.map((log) => transferLog(chainId, log, times.get(log.blockHash)!));
}

/**
 * The logs for `watched`, `LOGS_PER_BATCH` topic filters to a request, each group beside its
 * own `check` (the same node answers both; `check` throws when that node cannot vouch for the
 * block). Group `i` goes through `lane(i)`, a batching client of its own: calls made together
 * on one client are sent as one request, so the groups go out at once, one request each.
 */
async function checkedLogs(
  watched: readonly Address[],
  lane: Lanes,
  check: (client: PublicClient) => Promise<void>,
  read: (client: PublicClient, to: Address[]) => Promise<Log[]>,
): Promise<Log[]> {
  const chunks = chunked(watched);
  const groups: Promise<Log[]>[] = [];
  for (let i = 0; i < chunks.length; i += LOGS_PER_BATCH) {
    const client = lane(i / LOGS_PER_BATCH);
    groups.push(Promise.all([check(client), ...chunks.slice(i, i + LOGS_PER_BATCH).map((to) => read(client, to))]).then(([, ...pages]) => pages.flat()));
  }
  // Every group settles before an error is thrown: none is left unhandled.
  const settled = await Promise.allSettled(groups);
  const failed = settled.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
  return settled.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
}

/** Recipients in topic filters of at most `ADDRESSES_PER_REQUEST`. */
function chunked(watched: readonly Address[]): Address[][] {
  const chunks: Address[][] = [];
  for (let i = 0; i < watched.length; i += ADDRESSES_PER_REQUEST) chunks.push(watched.slice(i, i + ADDRESSES_PER_REQUEST) as Address[]);
  return chunks;
}

type Log = { blockNumber: bigint; blockHash: Hash; transactionHash: Hash; logIndex: number; address: Address; args: { from: Address; to: Address; value: bigint } };

const transferLog = (chainId: number, log: Log, timestamp: bigint): TransferLog => ({
  chainId,
  blockNumber: log.blockNumber,
  blockHash: log.blockHash,
  txHash: log.transactionHash,
  logIndex: log.logIndex,
  token: log.address,
  from: log.args.from,
  to: log.args.to,
  amount: log.args.value,
  timestamp,
});
