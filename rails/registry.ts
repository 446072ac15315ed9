import type { Config, Network, NetworkType } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { plugins } from "./plugins.ts";
import type { AgentPayments } from "./ports/agentPayments.ts";
import type { CrossChainPort } from "./ports/crossChain.ts";
import type { KindRails, NetworkRails, RailPlugin } from "./registration.ts";
import type { ChainIngest, ChainPort, CreatableMethod, EvidenceSource, PaymentKind, PaymentMethod } from "./types.ts";

/**
 * Each network type's ports (chain, ingest, payment methods), and the payment methods chosen
 * by the kind of payment rather than its network (cross-chain payments arrive through a
 * bridge, x402 ones by an agent's authorization), from the rails' one registration
 * (`plugins.ts`). Built on first use: a plugin's ports load db/ and chain libraries, which
 * Ponder's config (built from the same registration) must not.
 */
function register(list: readonly RailPlugin[]) {
  const byType: Partial<Record<NetworkType, NetworkRails>> = {};
  const byKind: Partial<Record<PaymentKind, KindRails>> = {};
  for (const { name, ports } of list) {
    if (ports && "network" in ports) byType[name as NetworkType] = ports.network();
    else if (ports) byKind[ports.kind] = ports.rails();
  }
  return { byType, byKind, types: Object.values(byType) };
}
let registered: ReturnType<typeof register> | undefined;
const ports = () => (registered ??= register(plugins));

type Typed = Pick<Network, "type">;

/** The chain of `network`'s type: heads, balances, addresses, money going out. */
export const chainFor = (network: Typed): ChainPort | undefined => ports().byType[network.type]?.chain;

/** The ingest that follows `network`'s chain. */
export const ingestFor = (network: Typed): ChainIngest | undefined => ports().byType[network.type]?.evidence;

/** The method of payments of `kind` on `network`: the kind's own (a bridge), else the one its network's type offers. */
export function methodFor(network: Typed, kind: "payment" | "deposit"): CreatableMethod | undefined;
export function methodFor(network: Typed, kind: PaymentKind): PaymentMethod | undefined;
export function methodFor(network: Typed, kind: PaymentKind): PaymentMethod | undefined {
  const { byKind, byType } = ports();
  return byKind[kind]?.method ?? (kind === "payment" || kind === "deposit" ? byType[network.type]?.methods[kind] : undefined);
}

/** Where the credits of `payment` on `network` come from: its kind's source (a bridge), else its chain's ingest. */
export const evidenceFor = (network: Typed, payment: { kind: PaymentKind }): EvidenceSource | undefined =>
  ports().byKind[payment.kind]?.evidence ?? ingestFor(network);

/** What the cross-chain endpoints and job ask of the bridge (routes, quotes, its webhooks, its reads); ServiceUnavailableError when no rail serves cross-chain payments. */
export function crossChainPort(): CrossChainPort {
  const port = ports().byKind.cross_chain?.crossChain;
  if (!port) throw new ServiceUnavailableError("Cross-chain payments are not available.");
  return port;
}

let agent: AgentPayments | undefined;
/** The x402 facilitator's verify and settle (`ports/agentPayments.ts`), loaded on the first call and kept (verify and settle ask it per request); ServiceUnavailableError when no rail serves x402 payments. */
export function agentPayments(): AgentPayments {
  if (agent) return agent;
  const load = ports().byKind.x402?.agentPayments;
  if (!load) throw new ServiceUnavailableError("x402 payments are not available.");
  return (agent = load());
}

/** Every chain ingest, once. */
export const ingests = (): ChainIngest[] => ports().types.map((t) => t.evidence);

/** Every evidence source: the chains' ingests and the kinds' own (a bridge). */
export const evidenceSources = (): EvidenceSource[] => [...ingests(), ...Object.values(ports().byKind).map((k) => k.evidence)];

/** The methods that stock what `prepare` draws on (`replenish`), named "<network type> <kind>", with the enabled networks they serve. */
export const stockedMethods = (config: Config): Array<{ name: string; method: StockedMethod; networks: Network[] }> =>
  ports().types.flatMap((t) =>
    Object.values(t.methods)
      .filter((m): m is StockedMethod => m.replenish !== undefined)
      .map((method) => ({ name: `${t.chain.type} ${method.kind}`, method, networks: networksOf(config, t.evidence) })),
  );
type StockedMethod = CreatableMethod & Required<Pick<CreatableMethod, "replenish">>;

/** The enabled networks `ingest` follows. */
export const networksOf = (config: Config, ingest: ChainIngest): Network[] => config.networks.filter((n) => n.enabled && ingestFor(n) === ingest);

/** The enabled networks whose chains `role`'s process follows (its `/metrics` reports their lag). */
export const networksFollowedBy = (config: Config, role: string): Network[] =>
  ingests()
    .filter((ingest) => ingest.ingestRole === role)
    .flatMap((ingest) => networksOf(config, ingest));

/** What serves one payment: its network, its chain, its method and its evidence. */
export type PaymentPorts = { network: Network; chain: ChainPort; method: PaymentMethod; evidence: EvidenceSource };

/** The ports of a payment of `payment.kind` on `network`, if it has them all. */
export function portsOn(network: Network, payment: { kind: PaymentKind }): PaymentPorts | undefined {
  const chain = chainFor(network);
  const method = methodFor(network, payment.kind);
  const evidence = evidenceFor(network, payment);
  return chain && method && evidence && { network, chain, method, evidence };
}

/** The ports of one payment; ServiceUnavailableError when its network is disabled or has none. */
export function portsOf(config: Config, payment: Pick<PaymentRow, "chainId" | "kind">): PaymentPorts {
  const network = config.networks.find((n) => n.chainId === payment.chainId && n.enabled);
  const ports = network && portsOn(network, payment);
  if (!ports) throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);
  return ports;
}

/** The enabled network of `chainId` and its chain (a sweep's or refund's row knows only its chain). */
export function chainOf(config: Config, chainId: string): { network: Network; chain: ChainPort } {
  const network = config.networks.find((n) => n.chainId === chainId && n.enabled);
  const chain = network && chainFor(network);
  if (!network || !chain) throw new ServiceUnavailableError(`The payment's network (chain ${chainId}) is not available.`);
  return { network, chain };
}
