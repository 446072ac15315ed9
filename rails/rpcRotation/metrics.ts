import { Gauge } from "prom-client";
import type { Network } from "../../config/types.ts";
import { networkRotation } from "../providerRotations.ts";
import { providerStates } from "./registry.ts";
import { registry } from "../../metrics/registry.ts";

let followed: Network[] = [];

/**
 * 1 for each RPC provider a chain uses now, 0 for one out of rotation; `reason` says why
 * (ok, only, unchecked, error, wrong_chain, stuck, lagging). `provider` is scheme and host only.
 */
new Gauge({
  name: "stablepay_rpc_provider_in_use",
  help: "1 when the chain's RPC provider is in rotation, 0 when it was dropped; reason: ok, only, unchecked, error, wrong_chain, stuck or lagging.",
  labelNames: ["network", "chain_id", "provider", "reason"] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const network of followed) {
      for (const s of providerStates(network)) {
        this.set({ network: network.shortName, chain_id: network.chainId, provider: s.provider, reason: s.reason }, s.inUse ? 1 : 0);
      }
    }
  },
});

/** Reports these networks' providers from now on, probing those with several. */
export async function watchProviders(networks: Network[]): Promise<void> {
  followed = networks;
  await Promise.all(networks.map(networkRotation));
}
