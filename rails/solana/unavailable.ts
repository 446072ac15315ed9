import type { Config, Network } from "../../config/index.ts";
import type { PaymentKind } from "../types.ts";

/** Solana needs no contracts: every enabled Solana network takes both kinds of payment. */
export const supportsKind = (_network: Network, _kind: PaymentKind): boolean => true;

/**
 * Why a payment of `kind` cannot be created now; deposit addresses need an operator to pay
 * their sweeps' fees, known here by its address (the worker holds its key).
 */
export function unavailable(config: Config, network: Network, kind: PaymentKind): string | null {
  if (kind === "deposit" && !config.solana.operatorAddress) {
    return `Deposit addresses on ${network.name} are not configured (SOLANA_OPERATOR_ADDRESS, or SOLANA_OPERATOR_SECRET_KEY in the worker: it pays their sweeps' fees).`;
  }
  return null;
}
