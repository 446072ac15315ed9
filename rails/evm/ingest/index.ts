import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hash } from "viem";
import type { Config } from "../../../config/index.ts";
import { evmClient } from "../client.ts";
import { transferRow } from "./transferRow.ts";
import { createWatchedAddresses } from "./watchedAddresses.ts";
import { BlockUnknownToNodeError, watchedTransfers } from "./watchedTransfers.ts";

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
 * The EVM rail's transfer ingest, run by the indexer's block handler: for each block, the
 * transfers of the chain's stablecoins into the addresses the service watches, as
 * `token_transfer` rows. Ponder orders the blocks, checkpoints them and rolls their rows
 * back on a reorg; this decides what a block holds for us.
 */
export function createTransferIngest(config: Config) {
  if (!config.databaseUrl) throw new Error("DATABASE_URL: required by the indexer");
  const watched = createWatchedAddresses(config.databaseUrl, config.indexer.watchAfterExpiryHours);
  const networks = new Map(config.networks.map((n) => [Number(n.chainId), n]));
  return {
    async rowsOf(chainId: number, block: { hash: Hash; number: bigint; timestamp: bigint }) {
      const network = networks.get(chainId);
      if (!network) return [];
      const addresses = await watched.of(chainId, block.timestamp);
      if (addresses.length === 0) return [];
      const tokens = network.tokens.map((t) => t.address as Address);
      const client = evmClient(network, config.rpcTimeoutMs * 5, { batch: true });
      // A failed read is asked again; still failing, the handler fails and Ponder does not checkpoint the block.
      for (let attempt = 1; ; attempt++) {
        try {
          return (await watchedTransfers(client, block, chainId, tokens, addresses)).map(transferRow);
        } catch (error) {
          if (attempt >= READ_ATTEMPTS) throw error;
          await sleep(error instanceof BlockUnknownToNodeError ? FIRST_RETRY_MS : Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), MAX_RETRY_MS));
        }
      }
    },
    close: watched.close,
  };
}
