/** An ERC-20 Transfer as the indexer records it in `token_transfer`. */
export type TransferLog = {
  chainId: number;
  blockNumber: bigint;
  blockHash: `0x${string}`;
  txHash: `0x${string}`;
  logIndex: number;
  token: `0x${string}`;
  from: `0x${string}`;
  to: `0x${string}`;
  amount: bigint;
  timestamp: bigint;
};

/** Row for `token_transfer`; the id makes re-indexing the same log a no-op. */
export const transferRow = (log: TransferLog) => ({ id: `${log.chainId}:${log.txHash}:${log.logIndex}`, ...log });
