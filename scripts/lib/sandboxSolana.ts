import { createHash } from "node:crypto";
import { getBase58Codec } from "@solana/kit";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain } from "@stablepay/devchain/solana";
import type { FileNetwork } from "../../config/index.ts";

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

export type SandboxSolana = {
  chain: SolanaDevChain;
  network: FileNetwork;
  /** Base58 64-byte secret keys, as wallets export them. */
  operatorSecretKey: string;
  customerSecretKey: string;
  merchantWallet: string;
};

/**
 * The sandbox's local Solana chain: a test USDC mint (6 decimals, classic Token
 * program), a customer with 10 SOL and 1,000,000 USDC, and an operator with 100 SOL to
 * pay sweep fees. Slots every 400 ms and finality 8 slots deep, so `confirming` is
 * visible for about three seconds; its chain id is its genesis hash.
 */
export async function startSandboxSolana(options: { slotMs?: number; finalityDepth?: number } = {}): Promise<SandboxSolana> {
  const finalityDepth = options.finalityDepth ?? 8;
  const chain = await startSolanaDevChain({ slotMs: options.slotMs ?? 400, finalityDepth });
  try {
    const usdc = await chain.createMint({ decimals: 6, mintKeypair: solanaSandboxAccounts.usdcMint });
    await chain.createFundedCustomer({ keypair: solanaSandboxAccounts.customer, lamports: 10n * BigInt(LAMPORTS_PER_SOL), tokens: [{ mint: usdc, amount: 1_000_000_000_000n }] });
    await chain.airdrop(solanaSandboxAccounts.operator.publicKey, 100n * BigInt(LAMPORTS_PER_SOL));
    const base58 = (key: Keypair) => getBase58Codec().decode(key.secretKey);
    return {
      chain,
      network: {
        name: "Solana Local",
        shortName: "solana-local",
        chainId: chain.ledger.clock.genesisHash,
        type: "solana",
        color: "#4B5563",
        explorerUrl: null,
        isTestnet: true,
        isLocal: true,
        requiredConfirmations: finalityDepth,
        tokens: [{ symbol: "USDC", name: "USD Coin (sandbox)", address: usdc.address.toBase58(), decimals: 6, tokenProgram: "spl-token" }],
        rpcUrl: chain.rpcUrl,
        wsUrl: chain.wsUrl,
      },
      operatorSecretKey: base58(solanaSandboxAccounts.operator),
      customerSecretKey: base58(solanaSandboxAccounts.customer),
      merchantWallet: solanaSandboxAccounts.merchant.publicKey.toBase58(),
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}
