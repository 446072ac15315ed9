import { keccak256, stringToHex } from "viem";
import type { Config, Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findMerchantPayment, lockPayment } from "../../db/payments.ts";
import { findSimulatedCredit, insertSimulatedCredit } from "../../db/simulatedCredits.ts";
import { NotFoundError, PaymentNotPendingError } from "../../domain/errors.ts";
import { closePayment, reconcilePayments } from "../../reconcile/index.ts";
import { uuidPattern } from "../schemas.ts";
import { requireTestMode } from "./requireTestMode.ts";

/** A recognisable, deterministic stand-in for a transaction hash: keccak256 of "stablepay:simulated:<id>:<outcome>". */
export const simulatedTxHash = (paymentId: string, outcome: "completed" | "failed") => keccak256(stringToHex(`stablepay:simulated:${paymentId}:${outcome}`));

/**
 * Drives a pending test payment to an outcome (spec: "POST /sandbox/payments/{id}/simulate"):
 * `{action: "complete"}` completes it; anything else (another value, no field, a field of
 * another name) fails it, answered as a normal result. The outcome is evidence, not a status
 * write: a simulated credit for the amount still owed (counted as final) or the merchant's
 * close as failed, then the same reconciliation (`settle`) a real payment goes through.
 * Only once: a second call is a 400 "Payment already completed" / "Payment already failed".
 */
export async function simulatePayment(deps: { config: Config; db: Db }, auth: { merchantId: string; mode: Mode }, paymentId: string, body: unknown) {
  const { config, db } = deps;
  requireTestMode(auth);
  const found = uuidPattern.test(paymentId) ? await findMerchantPayment(db, auth.merchantId, "test", paymentId.toLowerCase()) : undefined;
  if (!found || !found.isTest) throw new NotFoundError(`No test payment with id ${paymentId}.`);

  const action = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>).action : undefined;
  const outcome = action === "complete" ? "completed" : "failed";
  const txHash = simulatedTxHash(found.id, outcome);

  // Up to date with the chain first: a payment that has expired (or been paid) is not pending.
  await reconcilePayments(db, config, [found.id]);
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const payment = await lockPayment(tx, found.id);
    if (await findSimulatedCredit(tx, found.id)) throw new PaymentNotPendingError("Payment already completed");
    if (payment!.status !== "pending") {
      throw new PaymentNotPendingError(payment!.status === "confirming" ? "Payment is not pending: it is confirming" : `Payment already ${payment!.status}`);
    }
    // Still pending past its expiry (the chain's ingest behind, expiry held): no payment can be
    // made in time any more, and a credit now would be late money owed back, not a completion.
    const now = new Date();
    if (payment!.expiresAt <= now) throw new PaymentNotPendingError("Payment already expired");
    if (outcome === "completed") {
      const owed = payment!.amountRemaining > 0n ? payment!.amountRemaining : payment!.amount;
      await insertSimulatedCredit(tx, { paymentId: found.id, txHash, amount: owed, createdAt: now });
    } else {
      const why = action === undefined ? "no action given" : `action ${JSON.stringify(action)?.slice(0, 80)} is not "complete"`;
      await closePayment(tx, found.id, auth.merchantId, { status: "failed", reason: `Simulated failure (sandbox): ${why}` });
    }
  });
  await reconcilePayments(db, config, [found.id]);

  const current = (await findMerchantPayment(db, auth.merchantId, "test", found.id))!;
  return {
    success: true,
    message: current.status === outcome ? `Payment ${outcome} (simulated)` : `Payment simulated as ${outcome}; it is now ${current.status}`,
    payment: { id: current.id, status: current.status, isTest: current.isTest, transactionHash: current.completingTxHash ?? txHash },
  };
}
