import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { checkWebhookUrl } from "../../webhooks/checkWebhookUrl.ts";

/**
 * Refuses a webhook target before it is stored: it must be an http(s) URL and, when
 * `publicOnly` (live mode; test mode too unless the deployment allows local receivers,
 * `webhooks/publicTargetsOnly.ts`), resolve only to public addresses (SSRF).
 * 400 names the field; a DNS failure that may pass later is a 503.
 */
export async function assertWebhookUrl(field: string, url: string, publicOnly: boolean): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError(field, `Invalid field '${field}': not a URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    throw new ValidationError(field, `Invalid field '${field}': must be an http or https URL`);
  }
  if (!publicOnly) return;
  const check = await checkWebhookUrl(url);
  if (check.ok) return;
  if (check.problem === "dns_error") throw new ServiceUnavailableError(`Could not check '${field}': ${check.reason}; retry shortly.`);
  throw new ValidationError(field, `Invalid field '${field}': ${check.reason}`);
}
