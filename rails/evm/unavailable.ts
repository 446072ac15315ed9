import type { Config, Network } from "../../config/index.ts";
import type { PaymentKind } from "../types.ts";

/**
 * Whether a network has the contracts a kind of payment needs: deposit addresses are
 * forwarders of the ForwarderFactory; contract payments also need PaymentSettlement.
 */
export const supportsKind = (network: Network, kind: PaymentKind): boolean =>
  network.forwarderFactory !== null && (kind === "deposit" || network.settlementContract !== null);

/** Why a payment of `kind` cannot be created on `network` now; null when it can. */
export function unavailable(config: Config, network: Network, kind: PaymentKind): string | null {
  if (!supportsKind(network, kind)) return `${network.name} cannot accept payments yet: its settlement contracts are not configured`;
  // The operator signs contract payments' intents and pays every sweep's gas.
  if (!config.operatorPrivateKey) return "Payment signing is not configured (OPERATOR_PRIVATE_KEY).";
  return null;
}
