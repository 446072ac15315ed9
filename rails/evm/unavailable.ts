import type { Config, Network } from "../../config/index.ts";
import type { PaymentKind } from "../types.ts";
import { NO_INTENT_SIGNER } from "./intentSignerOf.ts";

/**
 * Whether a network has the contracts a kind of payment needs: deposit addresses are
 * forwarders of the ForwarderFactory; contract payments also need PaymentSettlement.
 */
export const supportsKind = (network: Network, kind: PaymentKind): boolean =>
  network.forwarderFactory !== null && (kind === "deposit" || network.settlementContract !== null);

/** Why a payment of `kind` cannot be created on `network` now; null when it can. */
export function unavailable(config: Config, network: Network, kind: PaymentKind): string | null {
  if (!supportsKind(network, kind)) return `${network.name} cannot accept payments yet: its settlement contracts are not configured`;
  return unavailableReason(config, kind);
}

/**
 * What this process lacks for a payment of `kind`: every EVM payment has a forwarder address
 * (a deposit's, or a contract payment's for plain transfers), so it needs an operator to sweep
 * it, known here by its address (the worker holds its key); a contract payment also needs the
 * intent signer's key.
 */
export function unavailableReason(config: Config, kind: PaymentKind): string | null {
  if (!config.operatorAddress) return "EVM payments are not configured: no operator sweeps their addresses (OPERATOR_ADDRESS, or OPERATOR_PRIVATE_KEY in the worker).";
  return kind === "deposit" || config.intentSignerPrivateKey ? null : NO_INTENT_SIGNER;
}
