import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { checkWebhookUrl } from "../../webhooks/checkWebhookUrl.ts";
import { parseHttpUrl } from "../requests/paymentFields.ts";

/**
 * Refuses a webhook target before it is stored: it must be an http(s) URL and, when
 * `publicOnly` (live mode; test mode too unless the deployment allows local receivers,
 * `webhooks/publicTargetsOnly.ts`), resolve only to public addresses (SSRF).
 * 400 names the field; a DNS failure that may pass later is a 503.
 */
export async function assertWebhookUrl(field: string, url: string, publicOnly: boolean): Promise<void> {
  parseHttpUrl(field, url);
  if (publicOnly) await assertPublicWebhookTarget(field, url);
}

/** The SSRF half of `assertWebhookUrl`, for a URL already parsed as http(s): it resolves only to public addresses. */
export async function assertPublicWebhookTarget(field: string, url: string): Promise<void> {
  const check = await checkWebhookUrl(url);
  if (check.ok) return;
  if (check.problem === "dns_error") throw new ServiceUnavailableError(`Could not check '${field}': ${check.reason}; retry shortly.`);
  throw new ValidationError(field, `Invalid field '${field}': ${check.reason}`);
}
