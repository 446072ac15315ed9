import { randomUUID } from "node:crypto";
import type { PaymentPayload } from "@x402/core/types";
import type { Config, Mode } from "../../config/index.ts";
import type { NewPayment } from "../../db/payments.ts";
import type { AgentPaymentOffer } from "../../rails/index.ts";

/** The longest a resource's description or URL is kept (the payer's text, shown to the merchant). */
const RESOURCE_TEXT_MAX = 1_000;

const bounded = (value: unknown): string | null => (typeof value === "string" ? value.slice(0, RESOURCE_TEXT_MAX) : null);

/**
 * The payment row of an x402 settlement: owed exactly what the authorization pays (on EVM into
 * the settlement contract, which passes it to the merchant's wallet less the service fee; on
 * Solana to the wallet itself), for the agent, with the resource paid for and the payer in its metadata.
 * It expires with the authorization (bounded by PAYMENT_MAX_EXPIRES_IN): after that it cannot settle.
 */
export function x402PaymentRow(
  config: Config,
  who: { merchantId: string; mode: Mode; agentId: string },
  offer: AgentPaymentOffer,
  payload: PaymentPayload,
  validBefore: bigint,
  paymentIdentifier: string | null,
): NewPayment {
  const now = new Date();
  const latest = now.getTime() + config.payments.maxExpiresIn * 1000;
  const expiresAt = new Date(Math.min(Number(validBefore) * 1000, latest));
  const resource = payload.resource;
  // As on every payment the contract settles: FEE_BPS of the amount, rounded down, to FEE_RECIPIENT
  // (none where the settlement pays the wallet whole).
  const fee = offer.collectsFee ? (offer.amount * BigInt(config.fees.bps)) / 10_000n : 0n;
  return {
    id: randomUUID(),
    merchantId: who.merchantId,
    mode: who.mode,
    isTest: who.mode === "test",
    kind: "x402",
    amount: offer.amount,
    amountRemaining: offer.amount,
    currency: offer.token.symbol,
    tokenSymbol: offer.token.symbol,
    tokenAddress: offer.token.address,
    tokenDecimals: offer.token.decimals,
    networkId: offer.network.id,
    chainId: offer.network.chainId,
    merchantWallet: offer.merchantWallet,
    feeAmount: fee,
    feeRecipient: offer.collectsFee ? (config.fees.recipient ?? offer.merchantWallet) : null,
    agentId: who.agentId,
    metadata: {
      x402: {
        payer: offer.payer,
        resource: resource ? { url: bounded(resource.url), description: bounded(resource.description), mimeType: bounded(resource.mimeType) } : null,
        nonce: offer.nonce,
        paymentIdentifier,
      },
    },
    expiresAt,
    createdAt: now,
    updatedAt: now,
  };
}
