import type { ReturnUrls } from "./returnUrls.ts";

/** The merchant's own fields of a new payment, parsed (every create takes them alike); null when absent. */
export type MerchantFields = {
  orderId: string | null;
  customerEmail: string | null;
  /** An http(s) URL, as given; whether it may be delivered to (SSRF) is checked by the service. */
  callbackUrl: string | null;
  returnUrls: ReturnUrls;
};

/** The fields from a body whose URLs are parsed already (`parseHttpUrl`, `parseReturnUrls`). */
export const merchantFieldsOf = (body: { orderId?: string; customerEmail?: string; callbackUrl?: string }, returnUrls: ReturnUrls): MerchantFields => ({
  orderId: body.orderId ?? null,
  customerEmail: body.customerEmail ?? null,
  callbackUrl: body.callbackUrl ?? null,
  returnUrls,
});

/** The payment columns they are stored in, as given. */
export const merchantColumns = (fields: MerchantFields) => ({
  orderId: fields.orderId,
  customerEmail: fields.customerEmail,
  callbackUrl: fields.callbackUrl,
  successUrl: fields.returnUrls.successUrl?.text ?? null,
  cancelUrl: fields.returnUrls.cancelUrl?.text ?? null,
});
