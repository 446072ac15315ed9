import type { SettleResponse } from "@x402/core/types";
import { extractPaymentIdentifier } from "@x402/extensions/payment-identifier";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { insertPayments } from "../../db/payments.ts";
import { findExistingX402Settlement, findX402Settlement, insertX402Settlement, x402GasSpentSince, type X402SettlementRow } from "../../db/x402Settlements.ts";
import { startOfUtcDay } from "../../domain/dateRange.ts";
import { AgentPolicyError } from "../../domain/errors.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { SETTLEMENT_PENDING } from "../../domain/x402.ts";
import { agentPayments, type AgentPaymentOffer } from "../../rails/index.ts";
import { recordCreated } from "../../reconcile/index.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { enforceAgentPolicy } from "./enforceAgentPolicy.ts";
import { x402PaymentRow } from "./x402Payment.ts";
import type { X402SettlementWaits } from "./x402SettlementWaits.ts";
import type { X402Request } from "./x402Request.ts";
import { takeVerified } from "./x402RecentVerifications.ts";
import { verifyX402, type X402Deps, type X402Verified } from "./x402Verify.ts";

export type X402SettleDeps = X402Deps & { prompts: Prompts; logger: Logger; x402Waits: X402SettlementWaits };

/** How long a settle waits for word of its settlement before it reads it anyway (a notification lost). */
const UNANNOUNCED_MS = 250;

/** Raised inside the writing transaction when another settle took the authorization first: it rolls back. */
class TakenMeanwhile extends Error {}

const refused = (network: string, errorReason: string, errorMessage: string, payer?: string): SettleResponse => ({ success: false, errorReason, errorMessage, payer, transaction: "", network: network as SettleResponse["network"] });

/**
 * Settles an authorization for the merchant. The API holds no key that moves money: it
 * verifies (or takes the verify this process just passed: `x402RecentVerifications.ts`),
 * then — in one transaction, the agent's policy row locked so concurrent settles count one
 * after another — writes the `x402` payment and its settlement row (an authorization, or a
 * payment identifier, is taken once), prompts the worker, and answers with what the worker
 * recorded within X402_SETTLE_WAIT_MS (woken by its announcement); still unmined then, it
 * answers `settlement_pending` (with the transaction once broadcast), never a failure. A
 * settle of an authorization this merchant already asked for is that settle: it answers its
 * outcome.
 */
export async function settleX402(deps: X402SettleDeps, auth: AuthContext, agentHeader: string | undefined, request: X402Request): Promise<SettleResponse> {
  const { db } = deps;
  const network = String(request.paymentRequirements.network);
  const paymentIdentifier = extractPaymentIdentifier(request.paymentPayload);
  // The operator pays the gas (fees): one merchant's settlements may not spend more of it than the cap a day.
  const gasSpentOn = (offer: AgentPaymentOffer) => x402GasSpentSince(db, auth.merchantId, offer.network.chainId, startOfUtcDay(new Date()));
  const taken = takeVerified<X402Verified>(deps.config, auth, agentHeader, request);
  // With the verification taken, what the chain's gas has cost is read beside the earlier settle.
  const [earlier, spentMeanwhile] = await Promise.all([earlierSettle(deps, auth, request, paymentIdentifier), taken?.offer ? gasSpentOn(taken.offer) : undefined]);
  if (earlier && "refusal" in earlier) return refused(network, earlier.refusal, earlier.message, earlier.payer);
  if (earlier) return answerWhenSettled(deps, earlier.row);

  const verified = taken ?? (await verifyX402(deps, auth, agentHeader, request));
  if (!verified.response.isValid || !verified.offer || !verified.agentId) {
    return refused(network, verified.response.invalidReason ?? "invalid_payload", verified.response.invalidMessage ?? "The payment did not verify.", verified.response.payer);
  }
  const { offer, agentId } = verified;
  const gasSpent = spentMeanwhile ?? (await gasSpentOn(offer));
  if (gasSpent >= agentPayments().on(offer.network).dailyFeeCap(deps.config)) {
    return refused(network, "gas_cap_reached", `Settlements on ${offer.network.shortName} have used today's gas allowance for this account (X402_DAILY_GAS_CAP_WEI); try again tomorrow (UTC).`, offer.payer);
  }
  const payment = x402PaymentRow(deps.config, { merchantId: auth.merchantId, mode: auth.mode, agentId }, offer, request.paymentPayload, offer.validBefore, paymentIdentifier);
  let row: X402SettlementRow;
  try {
    row = await db.transaction(async (raw) => {
      const tx = raw as unknown as Db;
      await enforceAgentPolicy(tx, { merchantId: auth.merchantId, mode: auth.mode, agentId, amount: offer.amount, decimals: offer.token.decimals, network: offer.network.shortName, token: offer.token.symbol, now: new Date() });
      const [inserted] = await insertPayments(tx, [payment]);
      const settlement = await insertX402Settlement(tx, {
        paymentId: inserted!.id,
        merchantId: auth.merchantId,
        mode: auth.mode,
        // As the requirements name it (CAIP-2, or v1's name): the settle answers in the caller's terms.
        network,
        chainId: offer.network.chainId,
        asset: offer.token.address,
        payer: offer.payer,
        payTo: offer.payTo,
        amount: offer.amount,
        nonce: offer.nonce,
        paymentIdentifier,
        x402Version: request.x402Version,
        payload: request.paymentPayload as unknown as Record<string, unknown>,
        requirements: request.paymentRequirements as unknown as Record<string, unknown>,
      });
      if (!settlement) throw new TakenMeanwhile();
      await recordCreated(tx, [inserted!]);
      return settlement;
    });
  } catch (error) {
    if (error instanceof AgentPolicyError) return refused(network, `agent_policy_${error.rule}`, error.message, offer.payer);
    if (!(error instanceof TakenMeanwhile)) throw error;
    // A concurrent settle of the same authorization (or identifier) won: this one is that one.
    const again = await earlierSettle(deps, auth, request, paymentIdentifier);
    if (!again) throw error;
    if ("refusal" in again) return refused(network, again.refusal, again.message, offer.payer);
    return answerWhenSettled(deps, again.row);
  }
  // Expired on time if it never settles (the recheck would catch it otherwise, later).
  // Alongside the worker's prompt, not before it: the settlement is what the agent waits for.
  const expiry = deps.prompts.expire([row.paymentId], payment.expiresAt).catch((error: unknown) => deps.logger.warn({ err: error, paymentId: row.paymentId }, "could not schedule expiry; recheck will catch it"));
  const [answer] = await Promise.all([answerWhenSettled(deps, row), expiry]);
  return answer;
}

/**
 * The settle already asked for this authorization or payment identifier: this merchant's own
 * (the same settle again), or a refusal — another merchant's authorization is not this
 * merchant's to read, and an identifier names one payment only.
 */
type Earlier = { row: X402SettlementRow } | { refusal: string; message: string; payer?: string };

async function earlierSettle(deps: X402Deps, auth: AuthContext, request: X402Request, paymentIdentifier: string | null): Promise<Earlier | undefined> {
  const agent = agentPayments();
  const network = agent.networkNamed(deps.config, request.paymentRequirements.network);
  const chain = network ? agent.on(network) : undefined;
  // On a network not served, only the payment identifier can match.
  const { payer, nonce } = chain?.keyOf(request.paymentPayload.payload) ?? { payer: "", nonce: "" };
  const key = { chainId: network?.chainId ?? "", asset: String(request.paymentRequirements.asset), payer, nonce };
  const row = await findExistingX402Settlement(deps.db, { ...key, merchantId: auth.merchantId, mode: auth.mode, paymentIdentifier });
  if (!row) return undefined;
  const known = payer === "" ? undefined : payer;
  if (row.merchantId !== auth.merchantId || row.mode !== auth.mode) return { refusal: chain?.replayReason ?? "duplicate_settlement", message: "This authorization was already presented for settlement.", payer: known };
  if (row.payer.toLowerCase() !== payer.toLowerCase() || row.nonce !== nonce) {
    return { refusal: "payment_identifier_conflict", message: "This payment identifier was already used for another authorization.", payer: known };
  }
  return { row };
}

/** Prompts the worker (again: one job per settlement) and answers with its outcome, or pending past the wait. */
async function answerWhenSettled(deps: X402SettleDeps, row: X402SettlementRow): Promise<SettleResponse> {
  await deps.prompts.x402Settle(row.id).catch((error: unknown) => deps.logger.warn({ err: error, settlementId: row.id }, "could not prompt the x402 settlement; answering pending"));
  const until = Date.now() + deps.config.x402.settleWaitMs;
  const open = (r: Pick<X402SettlementRow, "status">) => r.status === "requested" || r.status === "submitted";
  let current: Pick<X402SettlementRow, "status" | "txHash" | "errorReason"> = row;
  while (open(current) && Date.now() < until) {
    const wait = deps.x402Waits.next(row.id, Math.min(UNANNOUNCED_MS, until - Date.now()));
    current = (await findX402Settlement(deps.db, row.id)) ?? current;
    if (!open(current)) {
      wait.cancel();
      break;
    }
    // The outcome as announced (committed, read by Postgres itself), or read again.
    current = (await wait.woken) ?? current;
  }
  const base = { payer: row.payer, network: row.network as SettleResponse["network"] };
  if (current.status === "settled") return { success: true, transaction: current.txHash!, ...base };
  if (current.status === "failed") return { success: false, errorReason: current.errorReason ?? "unexpected_settle_error", transaction: current.txHash ?? "", ...base };
  return { success: false, errorReason: SETTLEMENT_PENDING, errorMessage: "Broadcast, not yet confirmed: do not pay again; ask again to learn the outcome.", transaction: current.txHash ?? "", ...base };
}
