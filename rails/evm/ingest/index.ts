import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hash } from "viem";
import type { Config } from "../../../config/index.ts";
import { evmClient } from "../client.ts";
import { transferRow } from "./transferRow.ts";
import { createWatchedAddresses } from "./watchedAddresses.ts";
import { BlockUnknownToNodeError, watchedTransfers } from "./watchedTransfers.ts";

/** How often, and how far apart, a block the node does not know yet is asked for again. */
const UNKNOWN_BLOCK_ATTEMPTS = 20;
const UNKNOWN_BLOCK_RETRY_MS = 250;

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
      // A node that does not know the block yet (behind the one Ponder follows) is asked again
      // shortly; still unknown, the handler fails and Ponder does not checkpoint the block.
      for (let attempt = 1; ; attempt++) {
        try {
          return (await watchedTransfers(client, block, chainId, tokens, addresses)).map(transferRow);
        } catch (error) {
          if (!(error instanceof BlockUnknownToNodeError) || attempt >= UNKNOWN_BLOCK_ATTEMPTS) throw error;
          await sleep(UNKNOWN_BLOCK_RETRY_MS);
        }
      }
    },
    close: watched.close,
  };
}
