import type { Config, Network } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";

/**
 * Refunds of money the merchant's wallet received directly (a contract payment, an x402
 * payment): the service holds none of it and no key of that wallet, so the merchant signs the
 * transfer and the operator relays it, paying the fee. A chain that can relay such a transfer
 * implements this; the payouts decide who may ask, where it may go and how much
 * (`payouts/merchantSignedRefund.ts`).
 */
export interface MerchantSignedRefunds {
  /** What `order.from` (the wallet that received the payment) signs to send `order.amount` of the payment's token to `order.to`. */
  prepare(config: Config, network: Network, payment: PaymentRow, order: RefundOrderToSign, timeoutMs: number): Promise<RefundToSign>;
  /**
   * The merchant's signed refund, checked against the chain's rules and `from`: signed by that
   * wallet, of the payment's token, still valid. Throws a `ValidationError` naming the field
   * that is wrong. What it answers is what the transfer row keeps to relay it.
   */
  accept(config: Config, network: Network, payment: PaymentRow, from: string, submission: SignedRefundSubmission, timeoutMs: number): Promise<AcceptedSignedRefund>;
}

export type RefundOrderToSign = { from: string; to: string; amount: bigint };

/** The signing request: typed data for the wallet's `eth_signTypedData_v4`, or a transaction for a Solana wallet's `signTransaction`. */
export type RefundToSign = {
  from: string;
  to: string;
  amount: bigint;
  /** After this, the signature lets nothing out: ask again. */
  validUntil: Date;
} & ({ format: "eip712"; typedData: unknown } | { format: "solana_transaction"; transaction: string });

/** What the merchant sends back: the signed typed data's message and signature, or the signed transaction (base64). */
export type SignedRefundSubmission = { authorization?: Record<string, unknown>; signature?: string; transaction?: string };

/** `lastValidBlockHeight`: where the chain bounds a signed transaction by height (Solana), the height after which it can never land. */
export type AcceptedSignedRefund = { to: string; amount: bigint; signed: Record<string, string>; lastValidBlockHeight?: bigint };
