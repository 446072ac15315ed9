import type { NetworkTypeSpec } from "../../config/networkTypeSpec.ts";
import { normalizeEvmAddress } from "../../domain/evmAddress.ts";

declare module "../../domain/networkType.ts" {
  interface NetworkTypes {
    evm: true;
  }
}

// The browser wallet interface its chain port asks a signed message through: the injected `window.ethereum`.
declare module "../ports/chain.ts" {
  interface MessageSigners {
    eip1193: true;
  }
}

/**
 * EVM networks as configuration knows them: checksummed addresses, variables by chain id
 * (`RPC_URL_8453`) or short name, RPC over HTTP or websockets, the service's contracts. The
 * catalogue: real networks and their real stablecoin contracts (addresses normalised and
 * checked at load, so a typo fails start-up, not a payment). Local anvil chains are not here:
 * the dev stack and tests describe them in a networks file.
 */
export const evmNetworkType: NetworkTypeSpec = {
  type: "evm",
  address: { normalize: normalizeEvmAddress, description: "EVM address (0x + 40 hex digits; a mixed-case address must have a valid EIP-55 checksum)", name: "EVM" },
  variablesByChainId: true,
  rpcProtocols: ["http:", "https:", "ws:", "wss:"],
  // A chain id is a positive integer (viem's chain, EIP-712 domains, RPC_URL_<chainId>).
  chainIdProblem: (chainId) => (/^[1-9]\d{0,15}$/.test(chainId) ? null : "must be a positive integer on an EVM network"),
  contracts: true,
  tokenPrograms: false,
  bridged: true,
  indexed: true,
  catalogue: [
    {
      name: "Ethereum", shortName: "ethereum", chainId: "1", type: "evm", color: "#627EEA",
      explorerUrl: "https://etherscan.io", isTestnet: false, isLocal: false, requiredConfirmations: 12,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 },
      ],
    },
    {
      name: "Base", shortName: "base", chainId: "8453", type: "evm", color: "#0052FF",
      explorerUrl: "https://basescan.org", isTestnet: false, isLocal: false, requiredConfirmations: 10,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2", decimals: 6 },
      ],
    },
    {
      name: "Polygon", shortName: "polygon", chainId: "137", type: "evm", color: "#8247E5",
      explorerUrl: "https://polygonscan.com", isTestnet: false, isLocal: false, requiredConfirmations: 64,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", decimals: 6 },
      ],
    },
    {
      name: "Arbitrum One", shortName: "arbitrum", chainId: "42161", type: "evm", color: "#28A0F0",
      explorerUrl: "https://arbiscan.io", isTestnet: false, isLocal: false, requiredConfirmations: 10,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", decimals: 6 },
      ],
    },
    {
      name: "OP Mainnet", shortName: "optimism", chainId: "10", type: "evm", color: "#FF0420",
      explorerUrl: "https://optimistic.etherscan.io", isTestnet: false, isLocal: false, requiredConfirmations: 10,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", decimals: 6 },
        { symbol: "USDT", name: "Tether USD", address: "0x94b008aA00579c1307B0EF2c499aD98a8ce58e58", decimals: 6 },
      ],
    },
    {
      // BNB Smart Chain's Binance-Peg stablecoins use 18 decimals, unlike everywhere else.
      name: "BNB Smart Chain", shortName: "bsc", chainId: "56", type: "evm", color: "#F0B90B",
      explorerUrl: "https://bscscan.com", isTestnet: false, isLocal: false, requiredConfirmations: 15,
      tokens: [
        { symbol: "USDC", name: "Binance-Peg USD Coin", address: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
        { symbol: "USDT", name: "Binance-Peg Tether USD", address: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 },
      ],
    },
    {
      name: "Sepolia", shortName: "sepolia", chainId: "11155111", type: "evm", color: "#CFB5F0",
      explorerUrl: "https://sepolia.etherscan.io", isTestnet: true, isLocal: false, requiredConfirmations: 3,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238", decimals: 6 },
      ],
    },
    {
      name: "Base Sepolia", shortName: "base-sepolia", chainId: "84532", type: "evm", color: "#0052FF",
      explorerUrl: "https://sepolia.basescan.org", isTestnet: true, isLocal: false, requiredConfirmations: 3,
      tokens: [
        { symbol: "USDC", name: "USD Coin", address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", decimals: 6 },
      ],
    },
  ],
};
