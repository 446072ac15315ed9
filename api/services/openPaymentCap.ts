import type { Config } from "../../config/index.ts";
import { OpenPaymentsLimitError } from "../../domain/errors.ts";
import type { AuthContext } from "../plugins/auth.ts";
import type { PaymentCreations } from "./batchedCreations.ts";

/**
 * Refuses a create (409 `open_payments_limit`) while the merchant already has as many open
 * payments in this mode as it may: every one is an address the chains' watchers follow.
 * Public-key creates stop earlier (`maxOpenPublicKey`), so that a script holding the public
 * key cannot take the room left for the merchant's own key + secret creates.
 */
export async function assertRoomForPayment(ctx: { config: Config; creations: PaymentCreations; auth: Pick<AuthContext, "merchantId" | "mode" | "scheme"> }) {
  const { maxOpen, maxOpenPublicKey } = ctx.config.payments;
  const { merchantId, mode, scheme } = ctx.auth;
  const cap = scheme === "public_key" ? maxOpenPublicKey : maxOpen;
  const open = await ctx.creations.openPayments(merchantId, mode, maxOpen);
  if (open < cap) return;
  throw new OpenPaymentsLimitError(
    scheme === "public_key"
      ? `This account has ${open} open ${mode} payments, as many as a public key may open (${cap}); create with the API key and secret (up to ${maxOpen}), or wait for some to complete or expire.`
      : `This account has ${open} open ${mode} payments, as many as it may have (${cap}); wait for some to complete or expire, or close unused ones (/payments/fail).`,
  );
}
