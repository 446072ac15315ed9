import { createWalletClient, type WalletClient } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Config } from "../../config/index.ts";
import type { Network } from "../../config/types.ts";
import { rpcUrlsOf } from "../rpcRotation/registry.ts";
import { pinnedChain } from "./pinnedChain.ts";
import { evmTransport } from "./transport.ts";

/** The operator's account (the worker's): sends, and pays gas for, sweeps and refunds. Intents have a signer of their own. */
export function operatorAccount(config: Config): PrivateKeyAccount | null {
  return config.operatorPrivateKey ? privateKeyToAccount(config.operatorPrivateKey) : null;
}

const clients = new Map<string, WalletClient>();

/** A wallet client for the operator on an EVM network (HTTP transport), reused per process. */
export function operatorWallet(config: Config, network: Network): WalletClient {
  const account = operatorAccount(config);
  if (!account) throw new Error("OPERATOR_PRIVATE_KEY is not configured");
  if (network.type !== "evm" || !network.rpcUrl) throw new Error(`network ${network.shortName} has no EVM RPC`);
  const urls = rpcUrlsOf(network);
  const key = `${network.id}|${urls.join(",")}|${account.address}`;
  let client = clients.get(key);
  if (!client) {
    client = createWalletClient({ account, chain: pinnedChain(Number(network.chainId), network.name, network.rpcUrl), transport: evmTransport(network, urls, { timeoutMs: 20_000, retryCount: 1 }) });
    clients.set(key, client);
  }
  return client;
}
