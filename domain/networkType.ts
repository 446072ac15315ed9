/** Kind of chain a network runs on. */
export type NetworkType = "evm" | "solana";
