import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, deployTestTokens, startAnvil, type AnvilInstance } from "@stablepay/devchain/evm";
import type { FileNetwork } from "../../config/index.ts";
import type { RailSandbox } from "../registration.ts";
import { deployForwarderFactory, deploySettlement } from "./settlement/index.ts";

/** Roles of anvil's well-known accounts in the sandbox. */
export const sandboxAccounts = {
  operator: anvilAccounts[0],
  customer: anvilAccounts[1],
  merchant: anvilAccounts[2],
  /** The local bridge's relayer: a million of each token on every chain is its liquidity. */
  relayer: anvilAccounts[3],
  /** Signs payment intents: the settlement contract's `operator` (it sends no transaction). */
  intentSigner: anvilAccounts[6],
} as const;

const LOCAL_CHAINS = [
  { chainId: 31337, name: "Anvil Local", shortName: "anvil" },
  { chainId: 31338, name: "Anvil Local 2", shortName: "anvil-2" },
] as const;

/**
 * Two fresh anvil chains (the second for cross-chain flows) with USDC, USDT (6
 * decimals) and DAI (18) deployed and a million of each minted to the customer and to
 * the local bridge's relayer, the settlement contract (its intents signed by the sandbox's
 * intent signer) and the forwarder factory (run by the sandbox operator).
 * Blocks every second, so confirmations grow as on a real chain.
 */
async function startAnvils(anvils: AnvilInstance[]): Promise<FileNetwork[]> {
  const customer = privateKeyToAccount(sandboxAccounts.customer).address;
  const relayer = privateKeyToAccount(sandboxAccounts.relayer).address;
  const operator = privateKeyToAccount(sandboxAccounts.operator).address;
  const networks: FileNetwork[] = [];
  for (const chain of LOCAL_CHAINS) {
    const anvil = await startAnvil({ chainId: chain.chainId, blockTime: 1 });
    anvils.push(anvil);
    const tokens = await deployTestTokens({
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      deployerPrivateKey: sandboxAccounts.operator,
      fund: [
        { address: customer, amount: 1_000_000n },
        { address: relayer, amount: 1_000_000n },
      ],
    });
    const connection = { rpcUrl: anvil.rpcUrl, chainId: chain.chainId, deployerPrivateKey: sandboxAccounts.operator, owner: operator };
    // The intent signer checks intents; the operator alone sweeps deposits and settles x402 authorizations.
    const settlementContract = await deploySettlement({ ...connection, operator: privateKeyToAccount(sandboxAccounts.intentSigner).address, settler: operator });
    const forwarderFactory = await deployForwarderFactory({ ...connection, operator });
    networks.push({
      name: chain.name,
      shortName: chain.shortName,
      chainId: String(chain.chainId),
      type: "evm",
      color: "#4B5563",
      explorerUrl: null,
      isTestnet: true,
      isLocal: true,
      requiredConfirmations: 3,
      tokens: tokens.map((t) => ({ symbol: t.symbol, name: t.name, address: getAddress(t.address), decimals: t.decimals })),
      rpcUrl: anvil.rpcUrl,
      wsUrl: anvil.wsUrl,
      settlementContract,
      forwarderFactory,
    });
  }
  return networks;
}

/** EVM's part of the sandbox: its two anvils, its operator, intent signer and the local bridge between the two chains. */
export const sandbox: RailSandbox = {
  env: {
    OPERATOR_PRIVATE_KEY: sandboxAccounts.operator,
    INTENT_SIGNER_PRIVATE_KEY: sandboxAccounts.intentSigner,
    // Cross-chain payments between the local chains through the local bridge and its relayer.
    BRIDGE_ADAPTER: "local",
    BRIDGE_LOCAL_RELAYER_KEY: sandboxAccounts.relayer,
    BRIDGE_POLL_INTERVAL_MS: "1000",
  },
  async start() {
    const anvils: AnvilInstance[] = [];
    const stop = async () => void (await Promise.all(anvils.map((a) => a.stop())));
    try {
      const networks = await startAnvils(anvils);
      const wallet = privateKeyToAccount(sandboxAccounts.merchant).address;
      return {
        networks,
        merchantWallets: Object.fromEntries(LOCAL_CHAINS.map((c) => [c.shortName, wallet])),
        devStack: { customerPrivateKey: sandboxAccounts.customer, customerAddress: privateKeyToAccount(sandboxAccounts.customer).address },
        stop,
      };
    } catch (error) {
      await stop();
      throw error;
    }
  },
};
