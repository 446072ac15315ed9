import { bridgeAdapterFor, type Config, type Network } from "../../../config/index.ts";

/** The EVM networks the local bridge serves: those some route from or to another enabled network sends through `local`. */
export function localChains(config: Config): Network[] {
  const evm = config.networks.filter((n) => n.enabled && n.type === "evm" && n.rpcUrl);
  return evm.filter((n) => evm.some((m) => bridgeAdapterFor(config.bridge, n, m) === "local" || bridgeAdapterFor(config.bridge, m, n) === "local"));
}
