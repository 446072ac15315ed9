import { parseHttpUrl } from "./paymentFields.ts";

/** A URL the merchant gave, as given (it is stored and shown so) and parsed. */
export type GivenUrl = { text: string; url: URL };

/**
 * Where the hosted checkout page sends the customer once paid (`successUrl`) and where it
 * offers to go back to (`cancelUrl`): http(s) URLs, null when absent. Whether a public-key
 * create may use them is `assertReturnUrls`' question (it needs the merchant's origins).
 */
export type ReturnUrls = { successUrl: GivenUrl | null; cancelUrl: GivenUrl | null };

export function parseReturnUrls(body: { successUrl?: string; cancelUrl?: string }): ReturnUrls {
  const parse = (field: "successUrl" | "cancelUrl") => {
    const text = body[field];
    return text === undefined ? null : { text, url: parseHttpUrl(field, text) };
  };
  return { successUrl: parse("successUrl"), cancelUrl: parse("cancelUrl") };
}
