import type { MerchantSettings } from "../../db/merchantSettings.ts";
import { ValidationError } from "../../domain/errors.ts";
import { isOnOrigin } from "../../domain/returnOrigin.ts";
import type { AuthContext } from "../plugins/auth.ts";
import type { ReturnUrls } from "../requests/returnUrls.ts";

/**
 * A new payment's `successUrl` and `cancelUrl` (parsed: `parseReturnUrls`), where the hosted
 * checkout page sends the customer (the browser opens them; the service never fetches them). Created
 * with a public key alone, which anyone can copy from a shop's page, they must also open
 * on one of the merchant's return origins in that mode — else anyone could send customers
 * a genuine checkout page, with the merchant's name, that ends on a site of their own.
 * A request with the API key and secret comes from the merchant's server: any URL.
 */
export function assertReturnUrls(
  auth: Pick<AuthContext, "mode" | "scheme">,
  merchant: Pick<MerchantSettings, "returnOrigins"> | null,
  urls: ReturnUrls,
): void {
  for (const field of ["successUrl", "cancelUrl"] as const) {
    const given = urls[field];
    if (given === null) continue;
    if (auth.scheme === "api_key" || isOnOrigin(given.url, merchant?.returnOrigins[auth.mode] ?? [])) continue;
    throw new ValidationError(
      field,
      `Invalid field '${field}': ${given.url.origin} is not one of this account's return origins; add it with PUT /return-origins, or create the payment with the API key and secret`,
    );
  }
}
