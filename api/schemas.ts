import { t } from "elysia";

/** Route schemas shared by several resources. */
export const paymentIdParams = t.Object({ paymentId: t.String({ format: "uuid", description: "Payment id (uuid)" }) });
/**
 * Status reads accept any id: the spec answers 500 for an id that does not exist, malformed or
 * not — one whose percent-escapes do not decode too (Elysia hands it over as null).
 */
export const anyPaymentIdParams = t.Object({ paymentId: t.Union([t.String(), t.Null()], { description: "Payment id" }) });

export const createPaymentBody = t.Object(
  {
    amount: t.Union([t.String({ maxLength: 100 }), t.Number()], { description: 'Decimal amount, e.g. "10.50"' }),
    currency: t.String({ minLength: 1, maxLength: 16, description: "Token symbol (USDC, USDT, …), or a fiat code (EUR, NGN, …) with `token`" }),
    network: t.String({ minLength: 1, maxLength: 64, description: "A network shortName from /networks" }),
    token: t.Optional(t.String({ minLength: 1, maxLength: 16 })),
    orderId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    customerEmail: t.Optional(t.String({ format: "email", maxLength: 320 })),
    callbackUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL for webhooks" })),
    successUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL the hosted checkout page sends the customer to once paid" })),
    cancelUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL the hosted checkout page offers to go back to without paying" })),
    // Parsed by `parseCreatePaymentRequest` (api/requests/): Elysia would coerce a string into a record of its characters.
    metadata: t.Optional(t.Unknown({ description: "Any JSON object: at most 50 keys, 5 levels deep, 16 KiB as JSON" })),
    expiresIn: t.Optional(t.Integer({ description: "Seconds until expiry" })),
    agentId: t.Optional(t.String({ maxLength: 200, description: "Agent creating the payment (or header X-Agent-Id); checked against its policy" })),
    // Parsed by `parseCreatePaymentRequest`, with the agent id it belongs to.
    agentOwner: t.Optional(t.Unknown({ description: "Who is accountable for the agent: 1 to 100 letters, digits, '_' or '-'" })),
  },
  { additionalProperties: true },
);

/** `/deposits/create`: a payment's body, plus the client SDK's `existingPaymentId` (the wallet payment the customer turned away from). */
export const createDepositBody = t.Object(
  {
    ...createPaymentBody.properties,
    existingPaymentId: t.Optional(t.String({ maxLength: 100, description: "The payment this deposit replaces for the customer (it stays open and expires by itself)" })),
  },
  { additionalProperties: true },
);

export { uuidPattern } from "../domain/uuid.ts";

/** Payment creation: Idempotency-Key (must fit an index row), plus X-Agent-Id for a payment an agent creates (checked against its policy). */
export const createPaymentHeaders = t.Object(
  {
    "idempotency-key": t.Optional(t.String({ minLength: 1, maxLength: 255 })),
    "x-agent-id": t.Optional(t.String({ maxLength: 200 })),
  },
  { additionalProperties: true },
);

/**
 * A refund request, for `/deposits/refund-request` and the checkout page's credential-free
 * twin: where to (absent: back to the address that paid) and why; with `signature`, a paying
 * address's signature of the request's message for `address` and `amount`.
 */
export const refundRequestBody = t.Object({
  address: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Where to send the refund; absent: back to the address that paid" })),
  reason: t.Optional(t.String({ maxLength: 500 })),
  amount: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Number()], { description: "With `signature`: the amount it covers, in token units" })),
  signature: t.Optional(
    t.String({ minLength: 1, maxLength: 200, description: "A paying address's signature of the refund message (EIP-191 hex on EVM; base58 or base64 ed25519 on Solana)" }),
  ),
});
