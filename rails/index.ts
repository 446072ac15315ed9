import type { Config, Network, NetworkType } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { evmRail } from "./evm/index.ts";
import { solanaRail } from "./solana/index.ts";
import type { Rail } from "./types.ts";

export type * from "./types.ts";
export { INDEXED_CHANNEL } from "./types.ts";

/** The rail of each network type. Adding a rail is one line here plus its folder. */
const railsByType: Record<NetworkType, Rail | undefined> = {
  evm: evmRail,
  solana: solanaRail,
};

/** The rail that takes payments on `network`, if any does yet. */
export const railFor = (network: Pick<Network, "type">): Rail | undefined => railsByType[network.type];

/** Every registered rail, once. */
export const allRails = (): Rail[] => [...new Set(Object.values(railsByType).filter((r): r is Rail => r !== undefined))];

/** The enabled networks served by `rail`. */
export const networksOf = (config: Config, rail: Rail): Network[] => config.networks.filter((n) => n.enabled && railFor(n) === rail);

/** A payment's network and rail; ServiceUnavailableError when its network is disabled or has no rail. */
export function railOfPayment(config: Config, payment: Pick<PaymentRow, "chainId">): { network: Network; rail: Rail } {
  const network = config.networks.find((n) => n.chainId === payment.chainId && n.enabled);
  const rail = network && railFor(network);
  if (!network || !rail) throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);
  return { network, rail };
}
