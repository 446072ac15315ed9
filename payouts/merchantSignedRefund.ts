import type { Network } from "../config/index.ts";
import { findPayment } from "../db/payments.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { movedOut, openTransferOut } from "../db/transfersOut.ts";
import { parseAmount } from "../domain/amounts.ts";
import { NotFoundError, RefundRefusedError, ServiceUnavailableError } from "../domain/errors.ts";
import { portsOn, type MerchantSignedRefunds, type PaymentPorts, type RefundToSign, type SignedRefundSubmission } from "../rails/index.ts";
import { paymentPayers, reconcilePayments } from "../reconcile/index.ts";
import type { PayoutDeps } from "./deps.ts";
import { assertNotReverting, checkDestination, fromChain, refundAddress } from "./refundChecks.ts";
import { solePayer } from "./routeRefund.ts";
import { closed, inProgress, recordSent, type SentRefund } from "./sendRefund.ts";
import { reserveTransferOut } from "./reserveTransfer.ts";
import { signedRefundDue } from "./signedRefundDue.ts";

/**
 * Refunds of money the merchant's own wallet received (contract and x402 payments: the service
 * holds none of it, `refund_not_held` on the deposit path). Only the merchant (key + secret)
 * asks: `prepareMerchantSignedRefund` answers what its wallet signs, `sendMerchantSignedRefund`
 * takes the signed refund, reserves it as a refund of the payment (under the payment's lock,
 * never more than the payment received less its refunds) and prompts the refund job, which
 * relays it with the operator's key, paying the fee. The wallet's signature is what moves the
 * money: no key here can, and the chain refuses anything the wallet did not sign.
 */

export type SignedRefundAsk = { address?: string; amount?: string | number };

type SignerPorts = PaymentPorts & { signer: MerchantSignedRefunds };

/** The payment's ports with its chain's relay; refused for money the service holds (its refunds go from the deposit address). */
function signerPorts(deps: Pick<PayoutDeps, "config">, payment: PaymentRow): SignerPorts {
  const network = deps.config.networks.find((n) => n.chainId === payment.chainId);
  const ports = network && portsOn(network, payment);
  if (!ports) throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);
  if (ports.method.holdsFunds?.(payment)) {
    throw new RefundRefusedError(
      "This payment's money is held by the service: refund it with POST /deposits/refund-request/{paymentId}, which sends it from the payment's address.",
      "refund_held",
    );
  }
  const signer = ports.chain.merchantSignedRefunds;
  if (!signer) throw new RefundRefusedError(`Refunds signed by the merchant's wallet cannot be relayed on ${ports.network.name}: the merchant sends the refund itself.`, "refund_not_signable");
  return { ...ports, signer };
}

/** `signedRefundDue`, or its refusal thrown (409 with its code). */
function refundableNow(deps: Pick<PayoutDeps, "config">, payment: PaymentRow, refunded: bigint, asked: bigint | null): bigint {
  const due = signedRefundDue({ payment, refunded, asked, minimum: deps.config.refunds.minimum });
  if ("refused" in due) throw new RefundRefusedError(due.refused.message, due.refused.code);
  return due.amount;
}

/** The payment, up to date with the chain (what it received, who paid it). */
async function current(deps: PayoutDeps, payment: PaymentRow): Promise<PaymentRow> {
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  const now = await findPayment(deps.db, payment.id);
  if (!now) throw new NotFoundError(`No payment with id ${payment.id}.`);
  return now;
}

/** What the merchant's wallet signs to refund `ask.amount` (default: all not yet refunded) to `ask.address` (default: the one address that paid). */
export async function prepareMerchantSignedRefund(deps: PayoutDeps, payment: PaymentRow, ask: SignedRefundAsk): Promise<{ network: Network; toSign: RefundToSign }> {
  const ports = signerPorts(deps, payment);
  const named = ask.address === undefined ? null : refundAddress(ports, ask.address);
  const asked = ask.amount === undefined ? null : parseAmount("amount", ask.amount, payment.tokenDecimals);
  await assertNotReverting(deps, payment);
  const now = await current(deps, payment);
  const to = named ?? solePayer(await paymentPayers(deps, now));
  if (!to) throw new RefundRefusedError("Name the address to refund ('address'): who paid this payment is not one known address.", "refund_address_required");
  await checkDestination(deps, ports, now, to);
  const amount = refundableNow(deps, now, (await movedOut(deps.db, now.id)).refund, asked);
  const toSign = await fromChain(deps, ports.network, now, ports.signer.prepare(deps.config, ports.network, now, { from: now.merchantWallet, to, amount }, 20_000));
  return { network: ports.network, toSign };
}

/** Takes the merchant's signed refund: checked on chain, reserved as a refund of the payment (its request recorded as sent), the refund job prompted. */
export async function sendMerchantSignedRefund(deps: PayoutDeps, payment: PaymentRow, submission: SignedRefundSubmission, reason: string | null): Promise<SentRefund> {
  const ports = signerPorts(deps, payment);
  const accepted = await fromChain(deps, ports.network, payment, ports.signer.accept(deps.config, ports.network, payment, payment.merchantWallet, submission, 20_000));
  await checkDestination(deps, ports, payment, accepted.to);
  await assertNotReverting(deps, payment);
  await current(deps, payment);
  if (await openTransferOut(deps.db, payment.id)) throw inProgress();
  let refusal: unknown = null;
  let sent: SentRefund["refundRequest"] | undefined;
  const transfer = await reserveTransferOut(
    deps.db,
    payment.id,
    (locked, moved) => {
      try {
        refundableNow(deps, locked, moved.refund, accepted.amount);
      } catch (error) {
        refusal = error;
        return null;
      }
      return { kind: "refund", chainId: locked.chainId, tokenAddress: locked.tokenAddress, toAddress: accepted.to, amount: accepted.amount, reason, merchantSigned: accepted.signed, lastValidBlockHeight: accepted.lastValidBlockHeight ?? null };
    },
    async (tx, locked, row) => {
      sent = await recordSent(tx, locked, ports.network, { to: accepted.to, authorizedBy: "merchant", cap: accepted.amount, requestedBy: "merchant", reason }, row);
    },
  );
  if (refusal) throw refusal;
  if (!transfer || !sent) throw transfer ? closed() : inProgress();
  await deps.prompts.refund(transfer.id).catch((error: unknown) => deps.logger.warn({ err: error, transfer: transfer.id }, "could not enqueue refund; recheck will"));
  return { refundRequest: sent, transfer };
}
