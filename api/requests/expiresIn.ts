import type { Config } from "../../config/index.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { AuthContext } from "../plugins/auth.ts";

/**
 * `expiresIn` in whole seconds, from 60 to the most this caller may ask: a public-key create
 * gets a shorter maximum (PUBLIC_KEY_MAX_EXPIRES_IN) than a key + secret one
 * (PAYMENT_MAX_EXPIRES_IN): each open payment is an address watched until it expires.
 */
export function parseExpiresIn(config: Config, auth: Pick<AuthContext, "scheme">, expiresIn: number): number {
  const { maxExpiresIn, publicKeyMaxExpiresIn } = config.payments;
  const max = auth.scheme === "public_key" ? publicKeyMaxExpiresIn : maxExpiresIn;
  if (Number.isInteger(expiresIn) && expiresIn >= 60 && expiresIn <= max) return expiresIn;
  const more = auth.scheme === "public_key" && maxExpiresIn > max ? ` with a public key (up to ${maxExpiresIn} with the API key and secret)` : "";
  throw new ValidationError("expiresIn", `Invalid field 'expiresIn': seconds between 60 and ${max}${more}`);
}
