import type { NetworkTypeSpec } from "../../config/networkTypeSpec.ts";
import { normalizeSolanaAddress } from "../../domain/solanaAddress.ts";

declare module "../../domain/networkType.ts" {
  interface NetworkTypes {
    solana: true;
  }
}

// The browser wallet interface its chain port asks a signed message through: an injected Solana wallet's `signMessage`.
declare module "../ports/chain.ts" {
  interface MessageSigners {
    solana: true;
  }
}

/**
 * Solana networks as configuration knows them: base58 addresses, variables by short name
 * (`RPC_URL_SOLANA`), RPC over HTTP (the websocket is WS_URL_*), tokens naming their program.
 * The catalogue: real networks and their real mints, checked at load.
 */
export const solanaNetworkType: NetworkTypeSpec = {
  type: "solana",
  address: { normalize: normalizeSolanaAddress, description: "Solana address (a base58 public key)", name: "Solana" },
  variablesByChainId: false,
  rpcProtocols: ["http:", "https:"],
  contracts: false,
  tokenPrograms: true,
  // Its subscriber role follows its chains (`rails/solana/`), not Ponder.
  bridged: false,
  indexed: false,
  catalogue: [
    {
      // Solana chain ids are CAIP-2 genesis-hash references.
      name: "Solana", shortName: "solana", chainId: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", type: "solana", color: "#9945FF",
      explorerUrl: "https://explorer.solana.com", isTestnet: false, isLocal: false, requiredConfirmations: 32,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", decimals: 6 },
      ],
    },
    {
      name: "Solana Devnet", shortName: "solana-devnet", chainId: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1", type: "solana", color: "#14F195",
      explorerUrl: "https://explorer.solana.com/?cluster=devnet", isTestnet: true, isLocal: false, requiredConfirmations: 32,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", decimals: 6 },
      ],
    },
  ],
};
