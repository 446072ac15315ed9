import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, type DeployedToken, deployTestTokens, localChain, startAnvil } from "@stablepay/devchain/evm";
import { freePort } from "@stablepay/devchain/freePort";
import { deployForwarderFactory, deploySettlement } from "../rails/evm/settlement/index.ts";
import { type Config, type FileNetworkInput } from "../config/index.ts";
import { buildConfig } from "../plugins/config.ts";
import { indexedEvmNetworks } from "../config/indexer.ts";
import { superviseIndexers } from "../indexer/indexers.ts";
import { createLogger } from "../config/logger.ts";

/** The ForwarderFactory's operator: sweeps and refunds deposit addresses (the worker's key). */
export const operatorKey = anvilAccounts[0] as Hex;
/** PaymentSettlement's operator: signs payment intents (the API's key; `createTestApi` sets it). */
export const intentSignerKey = anvilAccounts[6] as Hex;
export const customerKey = anvilAccounts[1] as Hex;
export const merchantWallet = privateKeyToAccount(anvilAccounts[2] as Hex).address;
export const customer = privateKeyToAccount(customerKey);

export type PaymentChain = {
  anvil: AnvilInstance;
  tokens: DeployedToken[];
  settlement: Address;
  factory: Address;
  network: FileNetworkInput;
  /** A networks file holding `network`, for processes (the indexer) that read their own env. */
  networksFile: string;
  publicClient: ReturnType<typeof createPublicClient>;
  customerWallet: ReturnType<typeof createWalletClient>;
  rpc: <T = unknown>(method: string, params?: unknown[]) => Promise<T>;
  mine: (blocks: number) => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * A real anvil with the test stablecoins, the settlement contract (intents signed by anvil
 * account 6) and the forwarder factory (operator: anvil account 0) deployed, a million of each token with the
 * customer (account 1) and any `alsoFund` address; the merchant's wallet is account 2.
 */
export async function startPaymentChain(
  options: {
    chainId?: number;
    shortName?: string;
    requiredConfirmations?: number;
    /** Blocks after which a block is final (default: the required confirmations; null: anvil's own `finalized`, 64 below the head). */
    finalityBlocks?: number | null;
    alsoFund?: Address[];
  } = {},
): Promise<PaymentChain> {
  const chainId = options.chainId ?? 31337;
  const anvil = await startAnvil({ chainId });
  const fund = [customer.address, ...(options.alsoFund ?? [])].map((address) => ({ address, amount: 1_000_000n }));
  const tokens = await deployTestTokens({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: operatorKey, fund });
  const operator = privateKeyToAccount(operatorKey).address;
  const connection = { rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: operatorKey, owner: operator };
  const settlement = await deploySettlement({ ...connection, operator: privateKeyToAccount(intentSignerKey).address, settler: operator });
  const factory = await deployForwarderFactory({ ...connection, operator });
  const network: FileNetworkInput = {
    name: "Anvil",
    shortName: options.shortName ?? "anvil",
    chainId: String(chainId),
    type: "evm",
    isTestnet: true,
    isLocal: true,
    requiredConfirmations: options.requiredConfirmations ?? 3,
    ...(options.finalityBlocks === null ? {} : { finalityBlocks: options.finalityBlocks ?? options.requiredConfirmations ?? 3 }),
    tokens: tokens.map((t) => ({ symbol: t.symbol, name: t.name, address: t.address, decimals: t.decimals })),
    rpcUrl: anvil.rpcUrl,
    wsUrl: anvil.wsUrl,
    settlementContract: settlement,
    forwarderFactory: factory,
  };
  const dir = mkdtempSync(join(tmpdir(), "stablepay-chain-"));
  const networksFile = join(dir, "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks: [network] }));
  const chain = localChain(chainId, anvil.rpcUrl);
  const rpc = async <T,>(method: string, params: unknown[] = []) => {
    const response = await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
    const json = (await response.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result as T;
  };
  return {
    anvil,
    tokens,
    settlement,
    factory,
    network,
    networksFile,
    publicClient: createPublicClient({ chain, transport: http(anvil.rpcUrl), pollingInterval: 100, cacheTime: 0 }),
    customerWallet: createWalletClient({ account: customer, chain, transport: http(anvil.rpcUrl) }),
    rpc,
    mine: async (blocks) => void (await rpc("anvil_mine", [`0x${blocks.toString(16)}`])),
    stop: () => anvil.stop(),
  };
}

/**
 * Runs the real indexer as the indexer role does (one Ponder per EVM chain of `networksFile`,
 * supervised, and the views schema over them) against `databaseUrl`, and waits until every
 * chain's Ponder is ready and the views show them.
 */
export async function startTestIndexer(config: Config, databaseUrl: string, networksFile: string, env: Record<string, string> = {}) {
  const childEnv = { APP_ENV: "test", NETWORKS_FILE: networksFile, OPERATOR_PRIVATE_KEY: operatorKey, ...env };
  // The chains as each Ponder will see them (the role's own rule).
  const seen = { ...process.env, ...childEnv };
  const chainIds = indexedEvmNetworks(buildConfig(seen), seen).map((n) => n.chainId);
  // A free port per chain, each asked of the kernel: the role's consecutive ports from one free
  // port could land on a port in use (a client socket's), and Ponder then moves to another one
  // that readiness is never asked at (a chain "not ready in 90 s").
  const ports: number[] = [];
  while (ports.length < chainIds.length) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const indexers = superviseIndexers(
    config,
    databaseUrl,
    {
      chainIds,
      port: ports[0]!,
      ports,
      logLevel: process.env.INDEXER_LOG_LEVEL ?? "error",
      env: childEnv,
    },
    createLogger({ level: (process.env.INDEXER_LOG_LEVEL as "error" | undefined) ?? "silent", name: "indexer" }),
  );
  const until = Date.now() + 90_000;
  for (const chain of indexers.chains) {
    while (true) {
      if (Date.now() >= until) {
        await indexers.stop();
        throw new Error(`indexer of chain ${chain.chainId} did not become ready in 90 s`);
      }
      try {
        if ((await fetch(`http://127.0.0.1:${chain.port}/ready`)).status === 200) break;
      } catch {}
      await Bun.sleep(200);
    }
  }
  await indexers.syncViews();
  return {
    /** The first chain's Ponder process id (benchmarks read its CPU time). */
    pid: indexers.chains[0]!.pid()!,
    /** Each chain's Ponder: its port and process id (null while it is being restarted). */
    chains: indexers.chains,
    stop: indexers.stop,
  };
}
