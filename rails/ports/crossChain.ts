import type { BridgeAdapterName, Config, Mode, Network, Token } from "../../config/index.ts";
import type { BridgeRequestRow } from "../../db/bridgeRequests.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { BridgeProgressUpdate } from "../../domain/bridgeRead.ts";
import type { RailContext } from "./context.ts";

/**
 * The cross-chain port: what the cross-chain endpoints and the `bridge` job ask of the rail
 * that serves cross-chain payments (a bridge), beside its payment method and evidence: its
 * routes, a quote, a bridge's signed webhook, and what a bridge request shows on its chains.
 * Registered with the kind's rail (`KindRails.crossChain`); callers reach it by `crossChainPort()`.
 */
export interface CrossChainPort {
  /** The networks a customer can pay from: every network some route leads away from. */
  sources(config: Config): Network[];
  /** The networks a bridge serves payments from `origin` to. */
  destinationsFrom(config: Config, origin: Network): Network[];
  /** The origin network of chain `chainId` for a key of `mode`; OriginNotSupportedError when no payment can leave from it. */
  originNetwork(config: Config, mode: Mode, chainId: number): Network;
  /** The least a payment on the route can be (a decimal in the destination token's units), when its bridge states it before a quote; else null. */
  routeMinimum(ctx: RailContext, origin: Network, destination: Network): Promise<string | null>;
  /** A deposit address from the route's bridge; errors are the bridge's (NO_ROUTE, ORIGIN_*, NO_DESTINATION, 502). */
  quote(ctx: RailContext, request: CrossChainQuoteRequest): Promise<CrossChainQuote>;
  /**
   * Relay's signed webhook: its event when `request.status.updated`, null for another event;
   * throws BridgeWebhookError when it does not verify.
   */
  verifyRelayWebhook(input: BridgeWebhookInput): BridgeWebhookEvent | null;
  /** What the bridge says of `request`, each leg checked on its chain: what `recordBridgeProgress` records. */
  observe(ctx: RailContext, payment: PaymentRow, request: BridgeRequestRow): Promise<BridgeObservation>;
}

export type CrossChainQuoteRequest = {
  origin: Network;
  originToken: Token;
  destination: Network;
  destinationToken: Token;
  /** The merchant's settlement wallet on the destination chain. */
  recipient: string;
  /** What the merchant must receive, destination token units. */
  amount: bigint;
  expiresAt: Date;
  /** Our payment id. */
  reference: string;
};

export type CrossChainQuote = {
  adapter: BridgeAdapterName;
  quote: BridgeQuote;
  /** Where the bridge refunds the customer; null: to the sender of each deposit. */
  refundTo: string | null;
};

export type BridgeQuote = {
  requestId: string;
  depositAddress: `0x${string}`;
  /** What the customer sends to `depositAddress`, in the origin token's smallest units. */
  amountToSend: bigint;
  expiresAt: Date;
  /**
   * The bridge's fees, already inside `amountToSend`, in smallest units of the fee token
   * (`currency` is its symbol; `chainId`/`address`/`decimals` say which token exactly).
   */
  fees: { total: bigint; currency: string; chainId?: number; address?: string; decimals?: number } | null;
  /** The bridge's answer as received, for the record. */
  raw?: unknown;
};

export type BridgeWebhookInput = {
  apiKey: string;
  /** `X-Signature-Timestamp` as received. */
  timestampHeader: string | null | undefined;
  /** `X-Signature-SHA256` as received. */
  signatureHeader: string | null | undefined;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string;
};

/** Which bridge request a verified webhook is about (to read it again: a webhook is never evidence). */
export type BridgeWebhookEvent = { requestId: string; depositAddress: string | null };

/** What a read of a bridge request found, every leg checked on its chain. */
export type BridgeObservation = BridgeProgressUpdate;
