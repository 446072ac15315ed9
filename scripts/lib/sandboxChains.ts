import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, deployTestTokens, startAnvil, type AnvilInstance } from "@stablepay/devchain/evm";
import { deployForwarderFactory, deploySettlement } from "../../rails/evm/settlement/index.ts";
import type { FileNetwork } from "../../config/index.ts";
import { startSandboxSolana, type SandboxSolana } from "./sandboxSolana.ts";

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

/**
 * Illustrative fiat rates (units per US dollar) so fiat-priced payments work in the
 * sandbox out of the box. Not market rates: production sets RATES_STATIC or uses the
 * HTTP provider. An operator's own RATES_STATIC wins.
 */
export const SANDBOX_RATES = "EUR=0.92,GBP=0.79,NGN=1550,KES=129,GHS=15.5,ZAR=18.2,INR=84,BRL=5.6,MXN=20,CAD=1.4";

const LOCAL_CHAINS = [
  { chainId: 31337, name: "Anvil Local", shortName: "anvil" },
  { chainId: 31338, name: "Anvil Local 2", shortName: "anvil-2" },
] as const;

export type LocalChains = {
  anvils: AnvilInstance[];
  solana: SandboxSolana;
  networks: FileNetwork[];
  /** The sandbox merchant's settlement wallet on each local network, by short name. */
  merchantWallets: Record<string, string>;
  stop: () => Promise<void>;
};

/**
 * Two fresh anvil chains (the second for cross-chain flows) with USDC, USDT (6
 * decimals) and DAI (18) deployed and a million of each minted to the customer and to
 * the local bridge's relayer, the settlement contract (its intents signed by the sandbox's
 * intent signer) and the forwarder factory (run by the sandbox operator).
 * Blocks every second, so confirmations grow as on a real chain. And a local Solana
 * chain (litesvm behind a loopback RPC) with a test USDC mint and a funded customer.
 */
export async function startLocalChains(options: { blockTime?: number } = {}): Promise<LocalChains> {
  const customer = privateKeyToAccount(sandboxAccounts.customer).address;
  const relayer = privateKeyToAccount(sandboxAccounts.relayer).address;
  const anvils: AnvilInstance[] = [];
  let solana: SandboxSolana | undefined;
  try {
    const networks: FileNetwork[] = [];
    for (const chain of LOCAL_CHAINS) {
      const anvil = await startAnvil({ chainId: chain.chainId, blockTime: options.blockTime ?? 1 });
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
      const operator = privateKeyToAccount(sandboxAccounts.operator).address;
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
    solana = await startSandboxSolana();
    networks.push(solana.network);
    const evmWallet = privateKeyToAccount(sandboxAccounts.merchant).address;
    const merchantWallets = { ...Object.fromEntries(LOCAL_CHAINS.map((c) => [c.shortName, evmWallet])), [solana.network.shortName]: solana.merchantWallet };
    const chain = solana.chain;
    return {
      anvils,
      solana,
      networks,
      merchantWallets,
      stop: async () => void (await Promise.all([...anvils.map((a) => a.stop()), chain.stop()])),
    };
  } catch (error) {
    await Promise.all([...anvils.map((a) => a.stop()), solana?.chain.stop()]);
    throw error;
  }
}
