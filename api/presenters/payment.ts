import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { paymentView } from "../../domain/paymentView.ts";
import { methodFor } from "../../rails/index.ts";

/*
 * The API's side of the one payment serialiser (domain/paymentView.ts): what needs the
 * payment's method (its URI, wallet instructions) or the public URL is computed here.
 */

/** The payment's QR/deep-link URI, from its payment method (null when it has none). */
export const paymentUriOf = (p: PaymentRow, network: Network | undefined) => (network && methodFor(network, p.kind)?.paymentUri?.(p)) ?? null;

/** The hosted checkout page of a payment: where a merchant sends the customer. */
export const checkoutUrlOf = (publicBaseUrl: string, paymentId: string) => `${publicBaseUrl}/pay/${paymentId}`;

/** The full record for the merchant (creation response and `GET /payments/{id}`). */
export function presentPayment(p: PaymentRow, network: Network | undefined, publicBaseUrl: string) {
  return paymentView(p, {
    network,
    paymentUri: paymentUriOf(p, network),
    walletInstructions: network && (methodFor(network, p.kind)?.walletInstructions?.(p, network) ?? null),
    checkoutUrl: checkoutUrlOf(publicBaseUrl, p.id),
  });
}
