import dns from "node:dns/promises";
import { isIP } from "node:net";
import { addressScope } from "../domain/addressScope.ts";

export type WebhookUrlCheck =
  | { ok: true; addresses: string[] }
  /**
   * `unsafe`: a non-public address; `invalid`: not an http(s) URL; `unresolved`: the
   * name has no address; `dns_error`: the lookup itself failed (may pass later).
   */
  | { ok: false; reason: string; problem: "unsafe" | "invalid" | "unresolved" | "dns_error" };

const DNS_TIMEOUT_MS = 5_000;

/**
 * Whether a webhook that must go to public addresses (live mode; test mode on production,
 * `publicTargetsOnly.ts`) may be sent to `url`: http(s), and every address its
 * host resolves to (or the address it is) is on the public internet — not loopback,
 * private, link-local, CGNAT, multicast, unspecified or reserved, in IPv4 or IPv6.
 * Checked when the URL is registered and again before each attempt, because DNS
 * answers change. Redirects are never followed (see `deliverWebhook`).
 */
export async function checkWebhookUrl(url: string): Promise<WebhookUrlCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "not a URL", problem: "invalid" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { ok: false, reason: "must be an http or https URL", problem: "invalid" };
  const host = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname;

  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error("DNS lookup timed out"), { code: "ETIMEOUT" })), DNS_TIMEOUT_MS);
      });
      const found = await Promise.race([dns.lookup(host, { all: true, verbatim: true }), timeout]).finally(() => clearTimeout(timer));
      addresses = found.map((a) => a.address);
    } catch (error) {
      const code = (error as { code?: string }).code;
      const missing = code === "ENOTFOUND" || code === "ENODATA";
      return missing
        ? { ok: false, reason: `${host} does not resolve`, problem: "unresolved" }
        : { ok: false, reason: `${host} could not be resolved (${code ?? "DNS error"})`, problem: "dns_error" };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve`, problem: "unresolved" };
  for (const address of addresses) {
    const scope = addressScope(address);
    if (scope !== "public") {
      const what = address === host ? `${host} is a ${scope} address` : `${host} resolves to ${address}, a ${scope} address`;
      return { ok: false, reason: `${what}; webhooks go only to public addresses`, problem: "unsafe" };
    }
  }
  return { ok: true, addresses };
}
