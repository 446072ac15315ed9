import type { Config, Network } from "../../config/index.ts";
import type { PaymentKind } from "../types.ts";

/** Solana needs no contracts: every enabled Solana network takes both kinds of payment. */
export const supportsKind = (_network: Network, _kind: PaymentKind): boolean => true;

/** Why a payment of `kind` cannot be created now; deposit addresses need an operator to pay their sweeps' fees. */
export function unavailable(config: Config, network: Network, kind: PaymentKind): string | null {
  if (kind === "deposit" && !config.solana.operatorSecretKey) {
    return `Deposit addresses on ${network.name} are not configured (SOLANA_OPERATOR_SECRET_KEY pays their sweeps' fees).`;
  }
  return null;
}
