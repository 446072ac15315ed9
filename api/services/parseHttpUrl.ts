import { ValidationError } from "../../domain/errors.ts";

/**
 * An http(s) URL a merchant gives (`callbackUrl`, `successUrl`, `cancelUrl`); anything
 * else could never be delivered to or opened. The 400 names the field.
 */
export function parseHttpUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(field, `Invalid field '${field}': not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ValidationError(field, `Invalid field '${field}': must be an http or https URL`);
  }
  return url;
}
