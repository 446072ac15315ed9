/**
 * Return origins: where a payment created with a public key alone may send the customer
 * back to. Origins are compared as the URL standard serialises them (scheme, lower-case
 * host, port only when not the scheme's default).
 */

/** At most this many origins per merchant and mode. */
export const MAX_RETURN_ORIGINS = 20;

/**
 * `value` as an http(s) origin, or the reason it is not one: a bare origin, a trailing
 * "/" allowed; a path, query, fragment, credentials or wildcard is refused (a wildcard
 * would look like it matched subdomains and match nothing).
 */
export function parseOrigin(value: string): { origin: string } | { reason: string } {
  if (value.includes("*")) return { reason: "wildcards are not supported; list each origin" };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { reason: "not a URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { reason: "must be an http or https origin" };
  if (url.username !== "" || url.password !== "") return { reason: "an origin carries no credentials" };
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || /[?#]/.test(value)) {
    return { reason: `an origin has no path, query or fragment (did you mean ${url.origin}?)` };
  }
  return { origin: url.origin };
}

/** Whether `url` (an http(s) URL) opens on one of `origins` (each as `parseOrigin` returns it). */
export const isOnOrigin = (url: URL, origins: readonly string[]) => origins.includes(url.origin);
