import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { movedOut, openTransferOut, recentlyReverted, reserveTransferOut, REVERT_LIMIT, type TransferOutRow } from "../../db/transfersOut.ts";
import { AppError, ConflictError, ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { refundable, refundMinimum, sweepOwed } from "../../domain/refundable.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { railForPayment } from "../../rails/index.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { unreceivableAddresses } from "../../rails/unreceivableAddresses.ts";

/**
 * A customer's refund address for what the payment owes them: an overpayment, money
 * that arrived late, or everything received by a payment that expired or failed.
 * Recorded as a row under the payment's lock (one refund in flight at a time), then
 * the `refund` job sends it. The caller has established who may ask: the merchant's
 * key (`/deposits/refund-request`) or the payment id itself (the checkout page's
 * `/payments/public/{id}/refund-request`).
 */
export async function requestRefund(
  deps: { config: Config; db: Db; logger: Logger; prompts: Prompts },
  payment: PaymentRow,
  body: { address: string; reason?: string },
): Promise<TransferOutRow> {
  const network = deps.config.networks.find((n) => n.chainId === payment.chainId);
  const rail = network && railForPayment(network, payment);
  const address = rail ? rail.normalizeAddress(body.address) : null;
  if (!network || !rail || !address) throw new ValidationError("address", `Invalid field 'address': not a valid ${network?.name ?? ""} address`.replace("  ", " "));
  if (!rail.holdsFunds(payment)) {
    throw new ConflictError(
      "Nothing to refund from here: this payment was paid to the merchant's own wallet, so the service holds none of it; the merchant returns what is owed.",
      "refund_not_held",
    );
  }
  if (rail.ownAddresses(payment).includes(address)) {
    throw new ValidationError("address", "Invalid field 'address': cannot refund to the payment's own deposit address");
  }
  // Sent there, the tokens are gone for good (or the transfer reverts, costing gas on every try).
  if (unreceivableAddresses(network, [payment.tokenAddress, payment.contractAddress]).has(address)) {
    throw new ValidationError("address", "Invalid field 'address': tokens sent there cannot come back (the zero address, the token's own contract or the service's contracts)");
  }
  // A node that fails or does not answer is a 503 to retry, not a 500 (its error may name the RPC URL: logged, not answered).
  const fromChain = <T>(read: Promise<T>): Promise<T> =>
    read.catch((error: unknown) => {
      if (error instanceof AppError) throw error;
      deps.logger.warn({ err: error, payment: payment.id }, "refund request: chain read failed");
      throw new ServiceUnavailableError(`The ${network.name} node did not answer; retry shortly.`);
    });
  const problem = await fromChain(rail.refundAddressProblem(network, payment, address, 20_000));
  if (problem) throw new ValidationError("address", `Invalid field 'address': tokens refunded there could not be spent: ${problem}`);
  // Anyone holding the payment id may ask (the checkout page): an address whose transfers
  // revert (a blacklisted one) must not burn the operator's gas again and again.
  if ((await recentlyReverted(deps.db, payment.id, "refund", REVERT_LIMIT.withinHours)) >= REVERT_LIMIT.times) {
    throw new ConflictError(
      `Refunds of this payment reverted on chain ${REVERT_LIMIT.times} times in the last ${REVERT_LIMIT.withinHours} hours; try another address later, or contact the merchant.`,
      "refund_reverting",
    );
  }
  // Up to date with the chain first: the refundable amount is computed from it.
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  if (await openTransferOut(deps.db, payment.id)) {
    throw new ConflictError("A refund or sweep for this payment is already in progress; try again when it has finished.", "refund_in_progress");
  }
  // What is owed is what the evidence adds up to, but what can be sent is what the address
  // holds, less the sweep still due to the merchant: money paid through the settlement
  // contract went straight to the merchant (a customer who paid twice, or whose contract
  // payment landed after a close), and the service holds none of it.
  const before = await movedOut(deps.db, payment.id);
  const held = await fromChain(rail.balanceOf(network, payment, 20_000));
  let conflict: { message: string; code: string } | null = null;
  const row = await reserveTransferOut(deps.db, payment.id, (current, moved) => {
    const owed = refundable(current, moved.refund);
    if (owed === 0n) {
      const yet = current.status === "pending" || current.status === "confirming" ? " yet" : "";
      conflict = { message: `Nothing to refund: the payment is ${current.status} and owes the customer nothing${yet}.`, code: "nothing_to_refund" };
      return null;
    }
    // Held now: the balance read, less what left the address since (a sweep or refund that ran meanwhile).
    const stillHeld = held - (moved.sweep - before.sweep) - (moved.refund - before.refund);
    const spare = stillHeld - sweepOwed(current, moved.sweep);
    if (spare <= 0n) {
      conflict = {
        message: `Nothing to refund from here: the payment owes the customer ${owed} (smallest units), but its address holds none of it beyond what is due to the merchant (money paid through the settlement contract went to the merchant directly); the merchant returns what is owed.`,
        code: "refund_not_held",
      };
      return null;
    }
    const amount = owed < spare ? owed : spare;
    // Anyone holding the payment id may ask: dust would cost the operator a transaction each time.
    const minimum = refundMinimum(deps.config.refunds.minimum, current.tokenDecimals);
    if (amount < minimum) {
      const token = current.tokenSymbol;
      conflict = {
        message: `Nothing to refund from here: the refund would send ${formatAmount(amount, current.tokenDecimals)} ${token}, less than the ${formatAmount(minimum, current.tokenDecimals)} ${token} this service refunds at least (its network fee would cost more than it returns); contact the merchant.`,
        code: "refund_below_minimum",
      };
      return null;
    }
    return { kind: "refund", chainId: current.chainId, tokenAddress: current.tokenAddress, toAddress: address, amount, reason: body.reason?.trim() || null };
  });
  if (!row) {
    const refused = conflict as { message: string; code: string } | null;
    throw new ConflictError(refused?.message ?? "A refund or sweep for this payment is already in progress.", refused?.code ?? "refund_in_progress");
  }
  await deps.prompts.refund(row.id).catch((error: unknown) =>
    deps.logger.warn({ err: error, transfer: row.id }, "could not enqueue refund; recheck will"),
  );
  return row;
}
