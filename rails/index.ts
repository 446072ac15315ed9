export type * from "./types.ts";
export type * from "./transferLedger.ts";
export type { PaymentPorts } from "./registry.ts";
export type * from "./ports/agentPayments.ts";
export { INDEXED_CHANNEL } from "./types.ts";
export { agentPayments, chainFor, chainOf, crossChainPort, evidenceFor, evidenceSources, ingestFor, ingests, methodFor, networksFollowedBy, networksOf, portsOf, portsOn, stockedMethods } from "./registry.ts";
