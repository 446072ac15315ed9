import { createHash } from "node:crypto";
import { getBase58Codec } from "@solana/kit";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { startSolanaDevChain } from "@stablepay/devchain/solana";
import type { RailSandbox } from "../registration.ts";

/** Well-known sandbox keypairs (like anvil's accounts): fixed seeds, so addresses stay the same across starts. Test money only. */
const sandboxKeypair = (role: string) => Keypair.fromSeed(createHash("sha256").update(`stablepay sandbox solana ${role}`).digest());

export const solanaSandboxAccounts = {
  operator: sandboxKeypair("operator"),
  customer: sandboxKeypair("customer"),
  merchant: sandboxKeypair("merchant"),
  usdcMint: sandboxKeypair("usdc mint"),
};

/** The sandbox's SOLANA_DEPOSIT_SEED (hex): well known like its keypairs, so its deposit addresses stay the same across starts. Test money only. */
export const sandboxDepositSeed = createHash("sha256").update("stablepay sandbox solana deposit seed").digest("hex");

/** Base58 64-byte secret keys, as wallets export them. */
const base58 = (key: Keypair) => getBase58Codec().decode(key.secretKey);

/** Slots every 400 ms and finality 8 slots deep, so `confirming` is visible for about three seconds. */
const SLOT_MS = 400;
const FINALITY_DEPTH = 8;

/**
 * Solana's part of the sandbox: a local chain (litesvm behind a loopback RPC) with a test USDC
 * mint (6 decimals, classic Token program), a customer with 10 SOL and 1,000,000 USDC, and an
 * operator with 100 SOL to pay sweep fees; its chain id is its genesis hash.
 */
export const sandbox: RailSandbox = {
  env: { SOLANA_OPERATOR_SECRET_KEY: base58(solanaSandboxAccounts.operator), SOLANA_DEPOSIT_SEED: sandboxDepositSeed },
  async start() {
    const chain = await startSolanaDevChain({ slotMs: SLOT_MS, finalityDepth: FINALITY_DEPTH });
    try {
      const usdc = await chain.createMint({ decimals: 6, mintKeypair: solanaSandboxAccounts.usdcMint });
      await chain.createFundedCustomer({ keypair: solanaSandboxAccounts.customer, lamports: 10n * BigInt(LAMPORTS_PER_SOL), tokens: [{ mint: usdc, amount: 1_000_000_000_000n }] });
      await chain.airdrop(solanaSandboxAccounts.operator.publicKey, 100n * BigInt(LAMPORTS_PER_SOL));
      const shortName = "solana-local";
      return {
        networks: [
          {
            name: "Solana Local",
            shortName,
            chainId: chain.ledger.clock.genesisHash,
            type: "solana",
            color: "#4B5563",
            explorerUrl: null,
            isTestnet: true,
            isLocal: true,
            requiredConfirmations: FINALITY_DEPTH,
            tokens: [{ symbol: "USDC", name: "USD Coin (sandbox)", address: usdc.address.toBase58(), decimals: 6, tokenProgram: "spl-token" }],
            rpcUrl: chain.rpcUrl,
            wsUrl: chain.wsUrl,
          },
        ],
        merchantWallets: { [shortName]: solanaSandboxAccounts.merchant.publicKey.toBase58() },
        devStack: { customerSolanaSecretKey: base58(solanaSandboxAccounts.customer), customerSolanaAddress: solanaSandboxAccounts.customer.publicKey.toBase58() },
        stop: () => chain.stop(),
      };
    } catch (error) {
      await chain.stop();
      throw error;
    }
  },
};
