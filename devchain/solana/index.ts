// The local Solana chain for the sandbox and tests.
export { startSolanaDevChain, type SolanaDevChain, type SolanaDevChainOptions } from "./startSolanaDevChain.ts";
export type { TestMint, TestMintOptions } from "./testing/createTestMint.ts";
export type { FundedCustomer, FundedCustomerOptions } from "./testing/createFundedCustomer.ts";
export { DevChainTransactionError } from "./testing/sendDevChainTransaction.ts";
export type { Commitment } from "./ledger/commitment.ts";
export type { DevLedger } from "./ledger/DevLedger.ts";
