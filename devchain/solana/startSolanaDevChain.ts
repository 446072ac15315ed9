import { LAMPORTS_PER_SOL, type PublicKey } from "@solana/web3.js";
import type { Commitment } from "./ledger/commitment.ts";
import { DevLedger } from "./ledger/DevLedger.ts";
import { PubSub } from "./pubsub/PubSub.ts";
import { allMethods } from "./rpc/allMethods.ts";
import { serveDevChain } from "./server/serveDevChain.ts";
import { createFundedCustomer, type FundedCustomer, type FundedCustomerOptions } from "./testing/createFundedCustomer.ts";
import { createTestMint, type TestMint, type TestMintOptions } from "./testing/createTestMint.ts";
import { mintTestTokens } from "./testing/mintTestTokens.ts";

export interface SolanaDevChainOptions {
  /** HTTP JSON-RPC + WebSocket port on 127.0.0.1 (WebSocket also on port + 1); free ports when omitted. */
  port?: number;
  /** A new slot every `slotMs` milliseconds (default 400, like mainnet); 0 produces slots only on `advanceSlots`. */
  slotMs?: number;
  /** Slots after which a processed slot is finalized (default 32; at least 1). */
  finalityDepth?: number;
  /** Slots a blockhash stays usable (default 150, like a real cluster). */
  blockhashValiditySlots?: number;
  /** Lamports in the faucet behind requestAirdrop and the helpers (default 1,000,000 SOL). */
  faucetLamports?: bigint;
  /**
   * The genesis hash it reports (`getGenesisHash`), base58 of 32 bytes: a local chain that
   * must pass for a known cluster (clients that name only those clusters' networks) takes
   * that cluster's; a fresh one each start when omitted.
   */
  genesisHash?: string;
}

export interface SolanaDevChain {
  rpcUrl: string;
  wsUrl: string;
  port: number;
  finalityDepth: number;
  /** The ledger behind the RPC, for tests that need to look underneath. */
  ledger: DevLedger;
  /** The slot a commitment level sees now (default processed: the slot being filled). */
  slot(commitment?: Commitment): number;
  /** Produces `n` slots at once (default 1); returns the new processed slot. */
  advanceSlots(n?: number): number;
  /** Produces enough slots for everything processed so far to be finalized. */
  finalize(): number;
  /** Lamports from the faucet; returns the transaction signature. */
  airdrop(recipient: PublicKey | string, lamports: bigint): Promise<string>;
  createMint(options?: TestMintOptions): Promise<TestMint>;
  /** Mints (smallest units) to the owner's associated token account, creating it if needed. */
  mintTo(mint: TestMint, owner: PublicKey, amount: bigint): Promise<{ tokenAccount: PublicKey; signature: string }>;
  createFundedCustomer(options?: FundedCustomerOptions): Promise<FundedCustomer>;
  /** Live WebSocket subscriptions, so tests can wait until a client has subscribed. */
  subscriptionCount(): number;
  stop(): Promise<void>;
}

/**
 * Starts a local Solana chain: the real SVM (litesvm, with SPL Token, Token-2022,
 * Associated Token Account and Memo) behind a JSON-RPC + PubSub server that web3.js
 * and spl-token use like any RPC provider, with slots, commitment levels, blockhash
 * expiry and a transaction history of its own.
 */
export async function startSolanaDevChain(options: SolanaDevChainOptions = {}): Promise<SolanaDevChain> {
  const slotMs = options.slotMs ?? 400;
  const finalityDepth = Math.max(1, options.finalityDepth ?? 32);
  const ledger = new DevLedger({
    finalityDepth,
    blockhashValiditySlots: options.blockhashValiditySlots ?? 150,
    faucetLamports: options.faucetLamports ?? 1_000_000n * BigInt(LAMPORTS_PER_SOL),
    genesisHash: options.genesisHash,
  });
  const pubsub = new PubSub(ledger);
  const server = await serveDevChain(ledger, pubsub, allMethods, options.port);
  const timer = slotMs > 0 ? setInterval(() => ledger.produceSlot(), slotMs) : undefined;
  const advanceSlots = (n = 1) => {
    for (let i = 0; i < n; i++) ledger.produceSlot();
    return ledger.clock.tip;
  };
  return {
    rpcUrl: `http://127.0.0.1:${server.port}`,
    wsUrl: `ws://127.0.0.1:${server.wsPort}`,
    port: server.port,
    finalityDepth,
    ledger,
    slot: (commitment = "processed") => ledger.clock.slotAt(commitment),
    advanceSlots,
    finalize: () => advanceSlots(finalityDepth),
    airdrop: async (recipient, lamports) => ledger.airdrop(recipient.toString(), lamports),
    createMint: async (mintOptions) => createTestMint(ledger, mintOptions),
    mintTo: async (mint, owner, amount) => mintTestTokens(ledger, mint, owner, amount),
    createFundedCustomer: async (customerOptions) => createFundedCustomer(ledger, customerOptions),
    subscriptionCount: () => pubsub.size,
    async stop() {
      clearInterval(timer);
      pubsub.dispose();
      await server.stop();
    },
  };
}
