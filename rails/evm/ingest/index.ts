import type { Address, Hash } from "viem";
import type { Config } from "../../../config/index.ts";
import { evmClient } from "../client.ts";
import { transferRow } from "./transferRow.ts";
import { createWatchedAddresses } from "./watchedAddresses.ts";
import { watchedTransfers } from "./watchedTransfers.ts";

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
      const logs = await watchedTransfers(evmClient(network, config.rpcTimeoutMs * 5), block, chainId, tokens, addresses);
      return logs.map(transferRow);
    },
    close: watched.close,
  };
}
