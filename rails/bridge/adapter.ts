import type { BridgeProgress } from "../../domain/bridgeStatus.ts";
import type { BridgeQuote } from "../ports/crossChain.ts";

/**
 * The bridge adapter port: what the cross-chain rail needs from a bridge. Adapters:
 * `relay` (Relay's HTTP API with strict deposit addresses) and `local` (two anvil chains
 * and a relayer). Errors are the `domain/errors.ts` classes: BridgeRouteError,
 * OriginNotSupportedError, OriginRefundNotSupportedError, NoDestinationError when the
 * route cannot be served, BridgeUnavailableError when the bridge itself failed.
 */

export type { BridgeProgress, BridgeQuote };

export type BridgeQuoteRequest = {
  /** Token the customer pays with on the origin chain. */
  originChainId: number;
  originToken: `0x${string}`;
  /** The merchant's chain and token. */
  destinationChainId: number;
  destinationToken: `0x${string}`;
  /** The merchant's settlement wallet on the destination chain. */
  recipient: `0x${string}`;
  /** What the merchant must receive, in the destination token's smallest units (EXACT_OUTPUT). */
  amount: bigint;
  /** Where the origin funds go back on underpayment or failure. */
  refundTo: `0x${string}`;
  expiresAt: Date;
  /** Idempotency / correlation: our payment id. */
  reference: string;
};

export type BridgeStatus = {
  requestId: string;
  progress: BridgeProgress;
  originTxHashes: string[];
  destinationTxHashes: string[];
  refundTxHashes: string[];
  updatedAt: Date | null;
  details?: string;
  /** Why a fill failed, in the bridge's words (Relay's `failReason`), when it says. */
  failReason?: string;
  /** Why a refund failed (Relay's `refundFailReason`), when it says. */
  refundFailReason?: string;
  /**
   * Every deposit in an origin block stamped at or before this time is in this answer
   * (`originTxHashes`); null when the bridge cannot say yet. Expiry waits for it.
   */
  seenThrough: Date | null;
};

export interface BridgeAdapter {
  /** "relay" | "local" */
  readonly name: string;
  /**
   * Whether `refund` makes the bridge return a deposit instead of filling it (the local
   * bridge), or only reports (Relay refunds strict deposit addresses on its own, never on request).
   */
  readonly refundsOnRequest: boolean;
  quote(request: BridgeQuoteRequest): Promise<BridgeQuote>;
  status(request: { requestId: string; depositAddress?: string }): Promise<BridgeStatus>;
  /** Ask for a refund of what reached the deposit address (adapters that refund automatically return their current status). */
  refund(request: { requestId: string; depositAddress: string; refundTo: string }): Promise<BridgeStatus>;
}
