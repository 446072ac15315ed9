import type { Config, Network, NetworkType } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { bridgeRail } from "./bridge/index.ts";
import { evmRail } from "./evm/index.ts";
import { solanaRail } from "./solana/index.ts";
import type { Rail } from "./types.ts";

export type * from "./types.ts";
export type * from "./transferLedger.ts";
export { INDEXED_CHANNEL } from "./types.ts";

/** The rail of each network type. Adding a rail is one line here plus its folder. */
const railsByType: Record<NetworkType, Rail | undefined> = {
  evm: evmRail,
  solana: solanaRail,
};

/** Rails chosen by the kind of payment rather than its network: cross-chain payments arrive through a bridge. */
const railsByKind: Partial<Record<PaymentRow["kind"], Rail>> = {
  cross_chain: bridgeRail,
};

/** The rail that takes payments on `network`, if any does yet. */
export const railFor = (network: Pick<Network, "type">): Rail | undefined => railsByType[network.type];

/** The rail of one payment on `network`: its kind's rail (a bridge), else its network's. */
export const railForPayment = (network: Pick<Network, "type">, payment: { kind?: PaymentRow["kind"] }): Rail | undefined =>
  (payment.kind && railsByKind[payment.kind]) || railFor(network);

/** Every registered rail, once. */
export const allRails = (): Rail[] => [
  ...new Set([...Object.values(railsByType), ...Object.values(railsByKind)].filter((r): r is Rail => r !== undefined)),
];

/** The enabled networks served by `rail`. */
export const networksOf = (config: Config, rail: Rail): Network[] => config.networks.filter((n) => n.enabled && railFor(n) === rail);

/** The enabled networks whose chains `role`'s process follows (its `/metrics` reports their lag). */
export const networksFollowedBy = (config: Config, role: string): Network[] =>
  allRails()
    .filter((rail) => rail.ingestRole === role)
    .flatMap((rail) => networksOf(config, rail));

/** A payment's network and rail; ServiceUnavailableError when its network is disabled or has no rail. */
export function railOfPayment(config: Config, payment: Pick<PaymentRow, "chainId"> & { kind?: PaymentRow["kind"] }): { network: Network; rail: Rail } {
  const network = config.networks.find((n) => n.chainId === payment.chainId && n.enabled);
  const rail = network && railForPayment(network, payment);
  if (!network || !rail) throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);
  return { network, rail };
}
