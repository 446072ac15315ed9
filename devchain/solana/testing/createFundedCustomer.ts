import { Keypair, LAMPORTS_PER_SOL, type PublicKey } from "@solana/web3.js";
import type { DevLedger } from "../ledger/DevLedger.ts";
import type { TestMint } from "./createTestMint.ts";
import { mintTestTokens } from "./mintTestTokens.ts";

export interface FundedCustomerOptions {
  /** Lamports to airdrop (default 10 SOL). */
  lamports?: bigint;
  /** Tokens to mint to the customer's associated token accounts (smallest units). */
  tokens?: { mint: TestMint; amount: bigint }[];
  /** Fixed keypair (e.g. from the sandbox's saved state); random by default. */
  keypair?: Keypair;
}

export interface FundedCustomer {
  keypair: Keypair;
  /** The customer's associated token account per mint, in the order given. */
  tokenAccounts: PublicKey[];
}

/** A wallet with SOL for fees and test tokens to pay with; processed at once. */
export function createFundedCustomer(ledger: DevLedger, options: FundedCustomerOptions = {}): FundedCustomer {
  const keypair = options.keypair ?? Keypair.generate();
  ledger.airdrop(keypair.publicKey.toBase58(), options.lamports ?? 10n * BigInt(LAMPORTS_PER_SOL));
  const tokenAccounts = (options.tokens ?? []).map(({ mint, amount }) => mintTestTokens(ledger, mint, keypair.publicKey, amount).tokenAccount);
  return { keypair, tokenAccounts };
}
