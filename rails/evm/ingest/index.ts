import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hash } from "viem";
import type { Config } from "../../../config/index.ts";
import { evmClient } from "../client.ts";
import { transferRow } from "./transferRow.ts";
import { createWatchedAddresses } from "./watchedAddresses.ts";
import { BlockUnknownToNodeError, watchedTransfers, watchedTransfersInRange } from "./watchedTransfers.ts";

/**
 * How often a block's read is tried, and how far apart: a node that does not know the
 * block yet every 250 ms; any other failure (a 429, a timeout, a 5xx, geth's "unknown
 * block" error) from 250 ms doubling to 5 s — about a minute in all. A handler that throws
 * ends Ponder (it takes its errors as final): it then restarts, waits out its lock and
 * reads its unfinalised blocks again, every chain held meanwhile.
 */
const READ_ATTEMPTS = 20;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * The EVM rail's transfer ingest, run by the indexer's block handlers: the transfers of the
 * chain's stablecoins into the addresses the service watches, as `token_transfer` rows —
 * for each block, into the addresses watched in every block (`rowsOf`), and every
 * `INDEXER_LATE_SCAN_BLOCKS` blocks, over the range that ends there, into the addresses
 * watched for late money (`lateRowsOf`). Ponder orders the blocks, checkpoints them and
 * rolls their rows back on a reorg; this decides what a block holds for us.
 */
export function createTransferIngest(config: Config) {
  if (!config.databaseUrl) throw new Error("DATABASE_URL: required by the indexer");
  const watched = createWatchedAddresses(config.databaseUrl, {
    afterExpiryHours: config.indexer.watchAfterExpiryHours,
    everyBlockAfterExpiryMinutes: config.indexer.everyBlockAfterExpiryMinutes,
  });
  const networks = new Map(config.networks.map((n) => [Number(n.chainId), n]));
  const lateScanBlocks = BigInt(config.indexer.lateScanBlocks);

  /** A read asked again while it fails; still failing, the handler fails and Ponder does not checkpoint the block. */
  async function read<T>(attemptRead: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptRead();
      } catch (error) {
        if (attempt >= READ_ATTEMPTS) throw error;
        await sleep(error instanceof BlockUnknownToNodeError ? FIRST_RETRY_MS : Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS));
      }
    }
  }
  const chainOf = (chainId: number) => {
    const network = networks.get(chainId);
    if (!network) return null;
    const lanes = (lane: number) => evmClient(network, config.rpcTimeoutMs * 5, { batch: true, lane });
    return { tokens: network.tokens.map((t) => t.address as Address), lanes, client: lanes(0) };
  };

  return {
    async rowsOf(chainId: number, block: { hash: Hash; number: bigint; timestamp: bigint }) {
      const chain = chainOf(chainId);
      if (!chain) return [];
      const addresses = await watched.everyBlock(chainId, block.timestamp);
      if (addresses.length === 0) return [];
      return read(async () => (await watchedTransfers(chain.lanes, block, chainId, chain.tokens, addresses)).map(transferRow));
    },
    /** The late-money scan, run at every `INDEXER_LATE_SCAN_BLOCKS`th block: the range of blocks ending at `block`. */
    async lateRowsOf(chainId: number, block: { hash: Hash; number: bigint; timestamp: bigint }) {
      const chain = chainOf(chainId);
      if (!chain) return [];
      const from = block.number >= lateScanBlocks ? block.number - lateScanBlocks + 1n : 0n;
      return read(async () => {
        // The range's first block's time bounds which expired addresses it may hold money for.
        const first = from === block.number ? block : await chain.client.getBlock({ blockNumber: from });
        const addresses = await watched.lateInRange(chainId, { from: first.timestamp, to: block.timestamp });
        if (addresses.length === 0) return [];
        return (await watchedTransfersInRange(chain.lanes, { from, to: block }, chainId, chain.tokens, addresses)).map(transferRow);
      });
    },
    close: watched.close,
  };
}
