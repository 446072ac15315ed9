import { bridgeAdapterFor, networksForMode, type Config, type Mode, type Network } from "../../config/index.ts";
import { OriginNotSupportedError } from "../../domain/errors.ts";

/** Networks a bridge can start or end on: enabled EVM chains with an RPC (their legs are verified there). */
const bridgeable = (config: Config) => config.networks.filter((n) => n.enabled && n.type === "evm" && n.rpcUrl);

/** The networks a bridge serves payments from `origin` to. */
export const destinationsFrom = (config: Config, origin: Network): Network[] =>
  bridgeable(config).filter((n) => bridgeAdapterFor(config.bridge, origin, n) !== null);

/** Chains and tokens a customer can pay from: every bridgeable network some route leads away from. */
export const crossChainSources = (config: Config): Network[] => bridgeable(config).filter((n) => destinationsFrom(config, n).length > 0);

/**
 * The origin chain of a cross-chain payment for a key of `mode`, or OriginNotSupportedError:
 * it must be an EVM chain this service has enabled (with an RPC, to verify the deposit), of
 * the key's mode (test keys pay from testnets), that some bridge route leaves from.
 */
export function originNetwork(config: Config, mode: Mode, chainId: number): Network {
  const known = config.networks.find((n) => n.chainId === String(chainId));
  if (!known || known.type !== "evm") {
    throw new OriginNotSupportedError(`Customers can pay only from EVM chains this service supports; chain ${chainId} is not one.`);
  }
  if (!known.enabled || !known.rpcUrl) throw new OriginNotSupportedError(`${known.name} (chain ${chainId}) is not enabled on this service.`);
  if (!networksForMode(config, mode).includes(known)) {
    throw new OriginNotSupportedError(`${known.name} is a ${known.isTestnet ? "testnet" : "mainnet"}; ${mode} keys take payments from ${mode === "test" ? "testnets" : "mainnets"}.`);
  }
  if (destinationsFrom(config, known).length === 0) throw new OriginNotSupportedError(`No bridge is configured for payments from ${known.name}.`);
  return known;
}
