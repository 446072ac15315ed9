import {
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { testStablecoinAbi, testStablecoinBytecode } from "./artifacts/index.ts";
import { localChain } from "./localChain.ts";

export type TestTokenSymbol = "USDC" | "USDT" | "DAI";

/** A deployed test token, shaped like a token catalogue entry (address EIP-55 checksummed), and its EIP-712 domain version. */
export type DeployedToken = { symbol: TestTokenSymbol; name: string; address: Address; decimals: number; version: string };

export type DeployTestTokensParameters = {
  rpcUrl: string;
  chainId: number;
  /** Becomes the tokens' owner, the only account allowed to mint. */
  deployerPrivateKey: Hex;
  /** `amount` is in whole tokens; each address receives `amount * 10^decimals` of every token. */
  fund: { address: Address; amount: bigint }[];
};

/**
 * The stand-ins deployed on local chains: two 6-decimal dollars and an 18-decimal one. Their
 * EIP-712 domains are the real tokens' (USDC's is "USD Coin", "2"): x402 clients sign for them.
 */
export const testTokenSpecs = [
  { symbol: "USDC", name: "USD Coin", decimals: 6, version: "2" },
  { symbol: "USDT", name: "Tether USD", decimals: 6, version: "1" },
  { symbol: "DAI", name: "Dai Stablecoin", decimals: 18, version: "1" },
] as const satisfies readonly Omit<DeployedToken, "address">[];

export class TestTokenDeployError extends Error {
  override name = "TestTokenDeployError";
}

/**
 * Deploys USDC, USDT and DAI `TestStablecoin`s and mints to every funded address.
 * Transactions of each phase are sent together with explicit nonces and awaited together,
 * so with a `blockTime` chain the whole setup takes two blocks, not one per transaction.
 */
export async function deployTestTokens(parameters: DeployTestTokensParameters): Promise<DeployedToken[]> {
  const { rpcUrl, chainId, deployerPrivateKey, fund } = parameters;
  const chain = localChain(chainId, rpcUrl);
  const account = privateKeyToAccount(deployerPrivateKey);
  // A short polling interval: local blocks arrive in milliseconds, viem's default is 4 s.
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 50 });
  const walletClient = createWalletClient({ account, chain, transport: http(rpcUrl), pollingInterval: 50 });

  let nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });

  // Sent one after another (nonces arrive in order: an automining anvil can leave a
  // transaction that arrived before its predecessor unmined), then awaited together.
  const deployHashes: Hash[] = [];
  for (const spec of testTokenSpecs) {
    deployHashes.push(
      await walletClient.deployContract({ abi: testStablecoinAbi, bytecode: testStablecoinBytecode, args: [spec.name, spec.symbol, spec.decimals, spec.version], nonce: nonce++ }),
    );
  }
  const receipts = await Promise.all(deployHashes.map((hash) => waitForSuccess(publicClient, hash)));
  const tokens = testTokenSpecs.map((spec, i): DeployedToken => {
    const address = receipts[i]?.contractAddress;
    if (!address) throw new TestTokenDeployError(`${spec.symbol} deployment ${deployHashes[i]} created no contract`);
    // Receipts carry lowercase addresses; callers compare and display the checksummed form.
    return { symbol: spec.symbol, name: spec.name, address: getAddress(address), decimals: spec.decimals, version: spec.version };
  });

  const mintHashes: Hash[] = [];
  for (const token of tokens) {
    for (const { address, amount } of fund) {
      mintHashes.push(
        await walletClient.writeContract({
          address: token.address,
          abi: testStablecoinAbi,
          functionName: "mint",
          args: [address, amount * 10n ** BigInt(token.decimals)],
          nonce: nonce++,
        }),
      );
    }
  }
  await Promise.all(mintHashes.map((hash) => waitForSuccess(publicClient, hash)));
  return tokens;
}

async function waitForSuccess(publicClient: PublicClient, hash: Hash) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new TestTokenDeployError(`transaction ${hash} reverted`);
  return receipt;
}
