import type { RpcMethods } from "./rpcMethod.ts";
import { devchainSolanaVersion } from "./rpcMethod.ts";

/** Node identity and health: one always-healthy node whose identity is the faucet. */
export const clusterMethods: RpcMethods = {
  getVersion() {
    return { "solana-core": devchainSolanaVersion, "feature-set": 0 };
  },

  getHealth() {
    return "ok";
  },

  getGenesisHash(_params, ledger) {
    return ledger.clock.genesisHash;
  },

  getIdentity(_params, ledger) {
    return { identity: ledger.faucet.publicKey.toBase58() };
  },

  getClusterNodes(_params, ledger) {
    return [{ pubkey: ledger.faucet.publicKey.toBase58(), gossip: null, tpu: null, rpc: null, version: devchainSolanaVersion, featureSet: 0, shredVersion: 0 }];
  },

  getRecentPerformanceSamples() {
    return [];
  },
};
