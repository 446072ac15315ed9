import { createWalletClient, http, type WalletClient } from "viem";
import { pinnedChain } from "../../evm/pinnedChain.ts";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Config, Network } from "../../../config/index.ts";
import { BridgeUnavailableError } from "../../../domain/errors.ts";

/** The local bridge's relayer account (BRIDGE_LOCAL_RELAYER_KEY): its liquidity fills, its forwarders take deposits. */
export function relayerAccount(config: Config): PrivateKeyAccount {
  const key = config.bridge.local?.relayerPrivateKey;
  if (!key) throw new BridgeUnavailableError("local", "no relayer is configured (BRIDGE_LOCAL_RELAYER_KEY)");
  return privateKeyToAccount(key);
}

const wallets = new Map<string, WalletClient>();

/** A wallet client for the relayer on an EVM network, reused per process. */
export function relayerWallet(config: Config, network: Network): WalletClient {
  const account = relayerAccount(config);
  if (!network.rpcUrl) throw new BridgeUnavailableError("local", `${network.name} has no RPC`);
  const key = `${network.id}|${network.rpcUrl}|${account.address}`;
  let wallet = wallets.get(key);
  if (!wallet) {
    const chain = pinnedChain(Number(network.chainId), network.name, network.rpcUrl);
    wallet = createWalletClient({ account, chain, transport: http(network.rpcUrl, { timeout: 20_000, retryCount: 1 }) });
    wallets.set(key, wallet);
  }
  return wallet;
}
