import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { customer, startPaymentChain, type PaymentChain } from "./paymentChain.ts";

/** The local bridge's relayer in tests, as in the sandbox: anvil account 3. */
export const relayerKey = anvilAccounts[3] as Hex;
export const relayerAddress = privateKeyToAccount(relayerKey).address;

export type BridgeChains = {
  /** The merchant's chain, `anvil` (31337). */
  destination: PaymentChain;
  /** The customer's chain, `anvil-2` (31338). */
  origin: PaymentChain;
  /** Both networks, for the API and the indexer. */
  networksFile: string;
  /** `holder`'s balance of `symbol` on a chain, smallest units. */
  balanceOf: (chain: PaymentChain, symbol: string, holder: Address) => Promise<bigint>;
  /** The customer sends `units` of `symbol` on the origin chain; resolves with the mined transaction's hash. */
  pay: (symbol: string, to: Address, units: bigint) => Promise<Hex>;
  stop: () => Promise<void>;
};

/**
 * The sandbox's two chains for cross-chain tests: real anvils with the test tokens, the
 * settlement contracts, the customer's and the relayer's million of each token on both
 * (the relayer's is its liquidity), and one networks file naming both.
 */
export async function startBridgeChains(options: { requiredConfirmations?: number } = {}): Promise<BridgeChains> {
  const [destination, origin] = await Promise.all([
    startPaymentChain({ chainId: 31337, shortName: "anvil", requiredConfirmations: options.requiredConfirmations ?? 2, alsoFund: [relayerAddress] }),
    startPaymentChain({ chainId: 31338, shortName: "anvil-2", requiredConfirmations: options.requiredConfirmations ?? 2, alsoFund: [relayerAddress] }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "stablepay-bridge-"));
  const networksFile = join(dir, "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks: [destination.network, { ...origin.network, name: "Anvil 2" }] }));
  const tokenOf = (chain: PaymentChain, symbol: string) => chain.tokens.find((t) => t.symbol === symbol)!.address;
  return {
    destination,
    origin,
    networksFile,
    balanceOf: (chain, symbol, holder) => chain.publicClient.readContract({ address: tokenOf(chain, symbol), abi: erc20Abi, functionName: "balanceOf", args: [holder] }),
    pay: async (symbol, to, units) => {
      const hash = await origin.customerWallet.writeContract({ address: tokenOf(origin, symbol), abi: erc20Abi, functionName: "transfer", args: [to, units], account: customer, chain: null });
      await origin.publicClient.waitForTransactionReceipt({ hash });
      return hash;
    },
    stop: async () => void (await Promise.all([destination.stop(), origin.stop()])),
  };
}
