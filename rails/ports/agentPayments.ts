import type { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements, VerifyResponse } from "@x402/core/types";
import type { Config, Mode, Network, Token } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";

/**
 * The agent-payment port: the x402 facilitator's own work (the protocol's, whatever the
 * network), which the API's `/x402/*` endpoints and the worker's `x402-settle` job call
 * through `agentPayments()` (`rails/registry.ts`). The API verifies with read-only signers;
 * only the worker settles, with the operators' keys. What differs per network type stays
 * behind it, in the rail that brings it (`rails/x402/`).
 */
export interface AgentPayments {
  /** The enabled networks the facilitator serves (with an RPC, and what settling there needs). */
  networks(config: Config): Network[];
  /** The served network an x402 network name (v2's CAIP-2 or v1's) names. */
  networkNamed(config: Config, name: unknown): Network | undefined;
  /** What the facilitator does on `network`'s chain. */
  on(network: Pick<Network, "type">): AgentPaymentChain;
  /**
   * Whether the requirements are an offer of this merchant's (`wallets`: its settlement
   * wallets by network id) in `mode`, and the payload an authorization paying exactly it.
   */
  checkOffer(config: Config, mode: Mode, wallets: ReadonlyMap<string, string>, payload: PaymentPayload, requirements: PaymentRequirements): OfferCheck;
  /** The protocol's own checks (signature, window, simulation), with signers that only read. */
  verify(config: Config, payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /** The kinds (scheme and network) served to `mode`'s credentials, leaving out networks the operator cannot settle on now. */
  supported(config: Config, mode: Mode): Promise<SupportedKinds>;
  /** The worker's settle, with the operators' signers (loaded on its first settlement). */
  settler(config: Config, databaseUrl: string): AgentPaymentSettler;
}

/** `/x402/supported`'s answer, in the protocol's shape. */
export type SupportedKinds = ReturnType<x402Facilitator["getSupported"]>;

/** What the facilitator does on one network's chain: what an authorization is found by, what its payer holds, what settling costs. */
export type AgentPaymentChain = {
  /** What an authorization is found by (an earlier settle of it), whatever its terms; undefined when the payload names none. */
  keyOf(payload: unknown): { payer: string; nonce: string } | undefined;
  /** x402's reason for an authorization presented before. */
  readonly replayReason: string;
  /** What the payer holds of the token (smallest units). */
  payerBalance(config: Config, network: Network, token: string, payer: string): Promise<bigint>;
  /** The most the operator may spend on one merchant's settlements a UTC day, in the chain's smallest native unit. */
  dailyFeeCap(config: Config): bigint;
  /** Why the operator cannot settle on `network` now, or null. */
  settlerProblem(config: Config, network: Network): Promise<string | null>;
};

/** An authorization the merchant offered, as the facilitator will settle it. */
export type AgentPaymentOffer = {
  network: Network;
  token: Token;
  /** As the chain spells them. */
  payer: string;
  /** What the authorization pays: a settlement contract that passes the money on, or the merchant's wallet itself. */
  payTo: string;
  /** The merchant's settlement wallet there: what the payment pays, less the service fee where it is collected. */
  merchantWallet: string;
  /** Whether the settlement takes the service fee (a settlement contract does; a payment straight to the wallet does not). */
  collectsFee: boolean;
  /** Smallest units of `token`. */
  amount: bigint;
  /** What keys the authorization on its chain (an EIP-3009 nonce, a transaction message's hash). */
  nonce: string;
  /** Unix seconds after which it can no longer settle. */
  validBefore: bigint;
};

export type OfferCheck = { ok: true; offer: AgentPaymentOffer } | { ok: false; reason: string; message: string; payer?: string };

/** What a settlement transaction paid the merchant's wallet: the payment's evidence, with what it cost the operator. */
export type SettlementTransfer = { txHash: string; blockNumber: bigint; blockTimestamp: Date; logIndex: number; gasCost: bigint; credited: bigint };

/** Where a settlement stands after the worker's run: settled (with its evidence), sent and not yet confirmed, or failed for good. */
export type SettleOutcome =
  | { status: "settled"; transfer: SettlementTransfer }
  | { status: "submitted"; txHash: string; gasCost?: bigint }
  | { status: "failed"; reason: string; txHash?: string | null; gasCost?: bigint | null };

/**
 * Submits a recorded settlement on `network` (or finds it already submitted) and reads what it
 * paid: `payment` says what a settlement contract pays out, `recordSigned` records a
 * transaction's id before it is sent (or waited for), so a run again finds it.
 */
export type AgentPaymentSettler = (
  network: Network,
  row: X402SettlementRow,
  ctx: { payment: Pick<PaymentRow, "merchantWallet" | "feeAmount" | "feeRecipient">; recordSigned: (txHash: string) => Promise<void> },
) => Promise<SettleOutcome>;
