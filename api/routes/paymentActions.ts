import { Elysia, t } from "elysia";
import { findMerchantPayment, type PaymentRow } from "../../db/payments.ts";
import { movedOut } from "../../db/transfersOut.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { portsOf } from "../../rails/index.ts";
import { reconcilePayments, refreshEvidence } from "../../reconcile/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { owedBack } from "../presenters/deposit.ts";
import { paymentStatusView } from "../../domain/paymentView.ts";
import { failPayment } from "../services/failPayment.ts";
import { processPayment } from "../services/processPayment.ts";
import { uuidPattern } from "../schemas.ts";

/** A transaction as `/payments/process` takes it: an EVM hash or a Solana signature. */
const TRANSACTION_PATTERN = "^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,88})$";

/** Actions on an existing payment: submit a transaction, close it, verify a QR payment. */
export const paymentActionRoutes = (deps: ApiDeps) => {
  const { db, config } = deps;
  return new Elysia({ prefix: "/payments", tags: ["Payments"] })
    .use(authPlugin(deps.credentials))
    .post(
      "/process",
      async ({ auth, body }) => {
        const payment = await processPayment(deps, auth, body);
        return { success: true, payment: paymentStatusView(payment) };
      },
      {
        auth: "public",
        body: t.Object({
          paymentId: t.String({ format: "uuid" }),
          txHash: t.Optional(
            t.String({
              pattern: TRANSACTION_PATTERN,
              description: "The transaction: an EVM hash (0x + 64 hex digits) or a Solana signature (base58); the payment's chain decides which it must be",
            }),
          ),
          // The client SDK's names for the same call.
          transactionHash: t.Optional(t.String({ pattern: TRANSACTION_PATTERN, description: "Same as txHash (the client SDK's name)" })),
          network: t.Optional(t.String({ maxLength: 64, description: "The payment's network shortName, if given (checked)" })),
          senderAddress: t.Optional(t.String({ maxLength: 128, description: "The paying wallet, as the client SDK reports it (not trusted: the transaction decides)" })),
        }),
        detail: { summary: "Submit an on-chain transaction for verification; never a credit unless it pays this payment" },
      },
    )
    .post(
      "/fail",
      async ({ auth, body }) => {
        const payment = await failPayment(deps, auth, body);
        return { success: true, payment: paymentStatusView(payment) };
      },
      {
        auth: "public",
        body: t.Object({
          paymentId: t.String({ format: "uuid" }),
          status: t.Union([t.Literal("failed"), t.Literal("cancelled"), t.Literal("expired")]),
          reason: t.Optional(t.String({ maxLength: 500 })),
        }),
        detail: { summary: "Mark a pending payment failed, cancelled or expired (409 from any other state)" },
      },
    )
    .post(
      "/verify-qr",
      async ({ auth, body }) => {
        const payment = uuidPattern.test(body.paymentId) ? await findMerchantPayment(db, auth.merchantId, auth.mode, body.paymentId) : undefined;
        if (!payment) {
          return { success: false, verified: false, error: "payment_not_found", message: `No payment with id ${body.paymentId}.` };
        }
        // The rail looks now beyond what ingest has reached (Solana Pay: the transfer carrying the reference).
        await refreshEvidence(deps, payment);
        const after = (await reconcilePayments(db, config, [payment.id])).get(payment.id)?.after;
        const current = (await findMerchantPayment(db, auth.merchantId, auth.mode, payment.id))!;
        const view = paymentStatusView(current);
        if (current.status === "confirming" || current.status === "completed") {
          return {
            success: true,
            verified: true,
            error: "",
            message: `Payment found on-chain (${current.status}).`,
            payment: view,
            onChainData: await onChainData(deps, current),
          };
        }
        if (current.status !== "pending") {
          const money = current.amountReceived > 0n ? `; ${moneyBack(current, (await movedOut(db, current.id)).refund)}` : "";
          return { success: true, verified: false, error: `payment_${current.status}`, message: `Payment is ${current.status}${money}.`, payment: view };
        }
        const partial = (after?.amountReceived ?? 0n) > 0n;
        return {
          success: true,
          verified: false,
          error: partial ? "payment_incomplete" : "payment_not_found_onchain",
          message: partial
            ? `Only ${view.amountReceived} of ${view.amount} ${current.currency} has arrived.`
            : `No on-chain payment for ${current.id} has been seen yet.`,
          payment: view,
        };
      },
      {
        auth: "public",
        body: t.Object({ paymentId: t.String({ minLength: 1, maxLength: 100 }) }),
        detail: { summary: "Verify a QR-initiated payment: 200 either way, read `verified`" },
      },
    );
};

/**
 * The client SDK's `onChainData` of a verified payment: the transaction that made the amount
 * whole and who sent it (read from its chain; null when the chain cannot say now).
 */
async function onChainData(deps: ApiDeps, payment: PaymentRow): Promise<{ transactionHash: string | null; from: string | null }> {
  const transactionHash = payment.completingTxHash;
  if (!transactionHash) return { transactionHash, from: null };
  try {
    const { network, evidence } = portsOf(deps.config, payment);
    return { transactionHash, from: (await evidence.transactionSender?.(network, transactionHash, deps.config.rpcTimeoutMs)) ?? null };
  } catch (error) {
    deps.logger.warn({ err: error, payment: payment.id }, "could not read the paying transaction's sender");
    return { transactionHash, from: null };
  }
}

/** What became of an ended payment's money: received, refunded (sent or under way), still owed back. */
function moneyBack(p: PaymentRow, refunded: bigint): string {
  const units = (v: bigint) => `${formatAmount(v, p.tokenDecimals)} ${p.currency}`;
  const owed = owedBack(p, refunded);
  if (refunded === 0n) return `${units(p.amountReceived)} received is owed back to the customer`;
  return `${units(p.amountReceived)} received, ${units(refunded)} refunded to the customer${owed > 0n ? `, ${units(owed)} still owed back` : ""}`;
}
