import type { Network } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { methodFor } from "./registry.ts";

export type * from "./types.ts";
export type * from "./transferLedger.ts";
export type { PaymentPorts } from "./registry.ts";
export { INDEXED_CHANNEL } from "./types.ts";
export { chainFor, chainOf, evidenceFor, evidenceSources, ingestFor, ingests, methodFor, networksFollowedBy, networksOf, portsOf, portsOn, stockedMethods } from "./registry.ts";

/**
 * What a payment shows its wallet (URI, instructions), from its method; for the payment
 * serialiser (`api/presenters/payment.ts`), which predates the ports. New code asks `methodFor`.
 */
export const railForPayment = (network: Pick<Network, "type">, payment: { kind: PaymentRow["kind"] }) => {
  const method = methodFor(network, payment.kind);
  return (
    method && {
      paymentUri: (p: PaymentRow) => method.paymentUri?.(p) ?? null,
      walletInstructions: (p: PaymentRow, n: Network) => method.walletInstructions?.(p, n) ?? null,
    }
  );
};
