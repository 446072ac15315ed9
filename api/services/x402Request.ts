import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ValidationError } from "../../domain/errors.ts";

/** A facilitator request (`/verify`, `/settle`) as x402 v2 and v1 send it. */
export type X402Request = { x402Version: 1 | 2; paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The body's payload and requirements, with their shapes checked enough that nothing after
 * reads a missing field: a 400 naming the field otherwise. `x402Version` at the top level may
 * be left out (the payload carries it); v1's `X-PAYMENT` payloads come as `paymentPayload` too.
 */
export function parseX402Request(body: unknown): X402Request {
  if (!isObject(body)) throw new ValidationError("body", "The body must be a JSON object with paymentPayload and paymentRequirements.");
  const { paymentPayload, paymentRequirements } = body;
  if (!isObject(paymentPayload)) throw new ValidationError("paymentPayload", "Invalid field 'paymentPayload': an x402 payment payload object is required.");
  if (!isObject(paymentRequirements)) throw new ValidationError("paymentRequirements", "Invalid field 'paymentRequirements': an x402 payment requirements object is required.");
  const version = paymentPayload.x402Version;
  if (version !== 1 && version !== 2) throw new ValidationError("paymentPayload.x402Version", "Invalid field 'paymentPayload.x402Version': 1 or 2.");
  if (body.x402Version !== undefined && body.x402Version !== version) {
    throw new ValidationError("x402Version", "Invalid field 'x402Version': it differs from the payment payload's.");
  }
  if (!isObject(paymentPayload.payload)) throw new ValidationError("paymentPayload.payload", "Invalid field 'paymentPayload.payload': an object is required.");
  if (version === 2 && !isObject(paymentPayload.accepted)) throw new ValidationError("paymentPayload.accepted", "Invalid field 'paymentPayload.accepted': an object is required (x402 v2).");
  for (const field of ["scheme", "network", "payTo", "asset"] as const) {
    if (typeof paymentRequirements[field] !== "string") throw new ValidationError(`paymentRequirements.${field}`, `Invalid field 'paymentRequirements.${field}': a string is required.`);
  }
  return { x402Version: version, paymentPayload: paymentPayload as unknown as PaymentPayload, paymentRequirements: paymentRequirements as unknown as PaymentRequirements };
}
