import {
  type Address,
  BaseError,
  type Chain,
  ContractFunctionRevertedError,
  type Hex,
  type HttpTransport,
  type PublicClient,
  type WalletClient,
  createPublicClient,
  createWalletClient,
  http,
} from "viem";
import { type PrivateKeyAccount, generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, type DeployedToken, deployTestTokens, type DeployTestTokensParameters, localChain, startAnvil, testStablecoinAbi } from "@stablepay/devchain/evm";

/**
 * Shared setup of the contract tests in test/contracts: a fresh anvil with the test stablecoins
 * deployed and funded, and the clients and helpers those tests use. Each test file deploys its
 * own contracts (settlement, forwarder factory) on top. For the full stack the API and the
 * indexer run against, see `startPaymentChain` in paymentChain.ts.
 */
export type TokenChain = {
  anvil: AnvilInstance;
  publicClient: PublicClient;
  /** USDC, USDT and DAI, in that order (the deployer's nonces 0, 1 and 2 on a fresh chain). */
  tokens: DeployedToken[];
  /** The deployed token with this symbol. */
  token: (symbol: DeployedToken["symbol"]) => DeployedToken;
  /** A wallet client sending as `account`. */
  walletFor: (account: PrivateKeyAccount) => WalletClient<HttpTransport, Chain, PrivateKeyAccount>;
  /** `holder`'s balance of the token at `tokenAddress`, in base units. */
  balanceOf: (tokenAddress: Address, holder: Address) => Promise<bigint>;
  /** Stops anvil. Safe to call twice. */
  stop: () => Promise<void>;
};

export type StartTokenChainParameters = {
  chainId: number;
  /** Deploys the tokens and so owns them (the only account allowed to mint); defaults to anvil account 0. */
  deployerPrivateKey?: Hex;
  /** Whole tokens minted of every token to each address, as in `deployTestTokens`. */
  fund: DeployTestTokensParameters["fund"];
};

/** Starts anvil and deploys the test tokens to it; callers `stop()` it (or `anvil.stop()`) in `afterAll`. */
export async function startTokenChain(parameters: StartTokenChainParameters): Promise<TokenChain> {
  const { chainId, deployerPrivateKey = anvilAccounts[0], fund } = parameters;
  const anvil = await startAnvil({ chainId });
  const chain = localChain(chainId, anvil.rpcUrl);
  // A short polling interval: local blocks arrive in milliseconds, viem's default is 4 s.
  const publicClient = createPublicClient({ chain, transport: http(), pollingInterval: 50, cacheTime: 0 });
  let tokens: DeployedToken[];
  try {
    tokens = await deployTestTokens({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey, fund });
  } catch (error) {
    await anvil.stop();
    throw error;
  }
  return {
    anvil,
    publicClient,
    tokens,
    token: (symbol) => {
      const found = tokens.find((t) => t.symbol === symbol);
      if (!found) throw new Error(`${symbol} not deployed`);
      return found;
    },
    walletFor: (account) => createWalletClient({ account, chain, transport: http(), pollingInterval: 50 }),
    balanceOf: (tokenAddress, holder) =>
      publicClient.readContract({ address: tokenAddress, abi: testStablecoinAbi, functionName: "balanceOf", args: [holder] }),
    stop: () => anvil.stop(),
  };
}

/** A fresh address with no history, so its balances are exactly what a test sent it. */
export function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** EIP-2612's typed-data struct. */
export const permitTypes = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The custom error a reverted call carries, e.g. { name: "InvalidAmount", args: [] }; undefined for any other error. */
export function revertOf(error: unknown): { name: string | undefined; args: readonly unknown[] | undefined } | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  return { name: reverted.data?.errorName, args: reverted.data?.args };
}

/** The custom error name a reverted call carries, e.g. "NotOperator". */
export function revertName(error: unknown): string | undefined {
  return revertOf(error)?.name;
}
