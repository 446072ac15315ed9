import type { VerifyResponse } from "@x402/core/types";
import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import { extractPaymentIdentifier } from "@x402/extensions/payment-identifier";
import { findExistingX402Settlement, type X402SettlementRow } from "../../db/x402Settlements.ts";
import { AgentPolicyError } from "../../domain/errors.ts";
import { agentPayments, type AgentPaymentOffer } from "../../rails/index.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { previewAgentPolicy } from "./enforceAgentPolicy.ts";
import { resolveAgentId } from "../requests/paymentFields.ts";
import type { X402Request } from "./x402Request.ts";

export type X402Deps = { config: Config; db: Db };

/** A verification, and on success what was verified (the settle goes on from it). */
export type X402Verified = { response: VerifyResponse; offer?: AgentPaymentOffer; agentId?: string };

const invalid = (invalidReason: string, invalidMessage: string, payer?: string): X402Verified => ({ response: { isValid: false, invalidReason, invalidMessage, payer } });

/** The agent an x402 payment is checked and recorded under: `X-Agent-Id` when sent, else the paying address. */
export const x402AgentId = (header: string | undefined, payer: string): string => resolveAgentId(header, undefined) ?? payer;

/**
 * Verifies an authorization for the merchant: that it is one the merchant offered
 * (`checkOffer`), not already settled or asked to be, that the payer holds the amount and the
 * agent's policy allows it, and the protocol's own checks (`exact` on EVM: signature,
 * window, recipient, amount, simulation; on Solana: the transaction's layout, signatures,
 * mint, recipient's token account, amount, fee payer, simulation) by @x402/core's facilitator.
 */
export async function verifyX402(deps: X402Deps, auth: AuthContext, agentHeader: string | undefined, request: X402Request): Promise<X402Verified> {
  const { config, db } = deps;
  const wallets = await settlementWalletsByNetwork(db, auth.merchantId);
  const agent = agentPayments();
  const checked = agent.checkOffer(config, auth.mode, wallets, request.paymentPayload, request.paymentRequirements);
  if (!checked.ok) return invalid(checked.reason, checked.message, checked.payer);
  const { offer } = checked;
  const agentId = x402AgentId(agentHeader, offer.payer);
  // All at once (the protocol's own checks too): a verify waits for the slowest read, not their sum.
  const [existing, balance, policy, settler, verified] = await Promise.all([
    findExistingX402Settlement(db, { chainId: offer.network.chainId, asset: offer.token.address, payer: offer.payer, nonce: offer.nonce, merchantId: auth.merchantId, mode: auth.mode, paymentIdentifier: null }),
    agent.on(offer.network).payerBalance(config, offer.network, offer.token.address, offer.payer),
    checkAgentPolicy(db, auth, agentId, offer),
    agent.on(offer.network).settlerProblem(config, offer.network),
    protocolVerify(config, request),
  ]);
  if (existing) return retriedOrReplayed(existing, auth, extractPaymentIdentifier(request.paymentPayload), offer, agentId);
  if (balance < offer.amount) return invalid("insufficient_funds", `The payer holds ${balance} of the ${offer.amount} required (smallest units).`, offer.payer);
  if (policy) return invalid(`agent_policy_${policy.rule}`, policy.message, offer.payer);
  // Verified, it would be refused at settle after the resource server did the work.
  if (settler) return invalid("facilitator_cannot_settle", `This facilitator cannot settle on ${offer.network.shortName} now: ${settler}.`, offer.payer);
  if ("error" in verified) return invalid("unexpected_verify_error", verified.error, offer.payer);
  return verified.isValid ? { response: { ...verified, payer: offer.payer }, offer, agentId } : { response: verified };
}

/** x402's own `exact` verification, its failure to answer as an error message. */
async function protocolVerify(config: Config, request: X402Request): Promise<VerifyResponse | { error: string }> {
  try {
    return await agentPayments().verify(config, request.paymentPayload, request.paymentRequirements);
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * An authorization presented before: a replay, refused — unless it is the same payment retried
 * under its `payment-identifier` (same merchant, same identifier), which verifies as before so
 * the resource server can answer the retry; its settle answers the one settlement.
 */
function retriedOrReplayed(existing: X402SettlementRow, auth: AuthContext, paymentIdentifier: string | null, offer: AgentPaymentOffer, agentId: string): X402Verified {
  const retry = existing.merchantId === auth.merchantId && existing.mode === auth.mode && paymentIdentifier !== null && existing.paymentIdentifier === paymentIdentifier;
  if (!retry) return invalid(agentPayments().on(offer.network).replayReason, "This authorization was already presented for settlement.", offer.payer);
  if (existing.status === "failed") return invalid(existing.errorReason ?? "unexpected_settle_error", "This payment's settlement failed.", offer.payer);
  return { response: { isValid: true, payer: offer.payer }, offer, agentId };
}

/** The agent policy rule this payment breaks, or null (read, locking nothing; the settle checks again, locked). */
async function checkAgentPolicy(db: Db, auth: AuthContext, agentId: string, offer: AgentPaymentOffer): Promise<AgentPolicyError | null> {
  try {
    await previewAgentPolicy(db, {
      merchantId: auth.merchantId,
      mode: auth.mode,
      agentId,
      amount: offer.amount,
      decimals: offer.token.decimals,
      network: offer.network.shortName,
      token: offer.token.symbol,
      now: new Date(),
    });
    return null;
  } catch (error) {
    if (error instanceof AgentPolicyError) return error;
    throw error;
  }
}
