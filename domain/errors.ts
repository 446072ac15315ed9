/**
 * The one error hierarchy. Each class carries its HTTP status and the spec's short
 * `error` text; `api/plugins/errors.ts` maps them to `{success:false, error, message, code?}`
 * in one place. Jobs read `retryable` to decide between a retry and giving up.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  /** Short machine-ish reason (the body's `error`). */
  abstract readonly error: string;
  /** Stable code for clients that branch on it (cross-chain creation uses these). */
  readonly code: string | undefined = undefined;
  readonly retryable: boolean = false;
  /** Extra response headers (e.g. `Deprecation`). */
  readonly headers: Record<string, string> = {};

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed; the message names the field. */
export class ValidationError extends AppError {
  readonly status = 400;
  readonly error = "invalid_request";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** 401: credentials missing or invalid; the `error` text names the headers to send (spec rule 5). */
export class UnauthorizedError extends AppError {
  readonly status = 401;
  readonly error: string;
  constructor(kind: "any" | "account") {
    const error =
      kind === "account"
        ? "API credentials required: send the x-api-key and x-api-secret headers"
        : "API credentials required: send the x-public-key header, or the x-api-key and x-api-secret headers";
    super(kind === "account" ? "This account-wide route authenticates with an API key and secret." : "Missing or invalid API credentials.");
    this.error = error;
  }
}

/** 401 on the operators' routes (`/metrics`, the queue dashboard): the operator token is missing or wrong. */
export class UnauthorizedOperatorError extends AppError {
  readonly status = 401;
  readonly error = "operator_token_required";
  override readonly headers: Record<string, string>;
  /** `challenge`: the `WWW-Authenticate` value, so a browser offers its password prompt. */
  constructor(challenge: string) {
    super("Send the operator token: Authorization: Bearer <OPERATOR_TOKEN> (or HTTP Basic with it as the password).");
    this.headers = { "WWW-Authenticate": challenge };
  }
}

/** 403: authenticated, but not allowed (live key on sandbox, agent policy, wrong mode). */
export class ForbiddenError extends AppError {
  readonly status = 403;
  readonly error = "forbidden";
}

/** 404: no such resource for this account. */
export class NotFoundError extends AppError {
  readonly status = 404;
  readonly error = "not_found";
}

/** 409: the resource is in a state that forbids the action. */
export class ConflictError extends AppError {
  readonly status = 409;
  readonly error: string;
  constructor(message: string, error = "conflict") {
    super(message);
    this.error = error;
  }
}

/**
 * 409: a refund cannot be asked for or sent now. `error` is the stable code clients branch
 * on: `nothing_to_refund`, `refund_in_progress`, `refund_below_minimum`, `refund_not_held`,
 * `refund_reverting`, `refund_address_required`, `refund_request_closed`,
 * `too_many_refund_requests`, `refund_signature_used`; for refunds the merchant's wallet signs,
 * `refund_held` (the service holds the money: the deposit door refunds it) and
 * `refund_not_signable` (the token or chain cannot relay a signed transfer).
 */
export class RefundRefusedError extends ConflictError {}

/** 403: a refund request's `signature` is not a paying address's signature of the request's message. */
export class RefundSignatureError extends AppError {
  readonly status = 403;
  readonly error = "refund_signature_invalid";
}

/**
 * 409: the key that marks a repeat reused with a different request body. The message names
 * what the caller sent as the key: the `Idempotency-Key` header, else the body's `orderId`
 * (`key` as `idempotencyKeyOf` prefixes it).
 */
export class IdempotencyKeyReusedError extends ConflictError {
  constructor(key: string) {
    super(`This ${key.startsWith("order:") ? "orderId" : "Idempotency-Key"} was already used with a different request body.`, "idempotency_key_reused");
  }
}

/**
 * 429: the caller asked for something more often than its limit allows. `headers`: `Retry-After`
 * (whole seconds until it may ask again) and, for a rate limit's bucket, the IETF draft's
 * `RateLimit-Policy` / `RateLimit`.
 */
export class RateLimitedError extends AppError {
  readonly status = 429;
  readonly error = "rate_limited";
  override readonly headers: Record<string, string>;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    /** The bucket that refused, when a windowed rate limit did (its policy goes in the headers). */
    policy?: { bucket: string; limit: number; windowSeconds: number },
  ) {
    super(message);
    this.headers = { "Retry-After": String(retryAfterSeconds) };
    if (policy) {
      this.headers["RateLimit-Policy"] = `"${policy.bucket}";q=${policy.limit};w=${policy.windowSeconds}`;
      this.headers.RateLimit = `"${policy.bucket}";r=0;t=${retryAfterSeconds}`;
    }
  }

  /** A windowed rate limit's refusal: its message names what, the limit and the window. */
  static ofBucket(bucket: string, limit: number, windowSeconds: number, retryAfterSeconds: number, what: string): RateLimitedError {
    return new RateLimitedError(`Too many ${what}: at most ${limit} every ${windowSeconds} s. Retry after ${retryAfterSeconds} s.`, retryAfterSeconds, { bucket, limit, windowSeconds });
  }
}

/** 409: the merchant has as many open (pending) payments in this mode as it may; one must end first. */
export class OpenPaymentsLimitError extends ConflictError {
  constructor(message: string) {
    super(message, "open_payments_limit");
  }
}

/** 413: the request body is over the API's limit (`REQUEST_LIMITS.maxBodyBytes`). */
export class PayloadTooLargeError extends AppError {
  readonly status = 413;
  readonly error = "payload_too_large";
}

/** 431: the request's headers together are over the API's limit. */
export class HeadersTooLargeError extends AppError {
  readonly status = 431;
  readonly error = "request_header_fields_too_large";
}

/** 503: a dependency (database, RPC, rates) is unavailable; safe to retry. */
export class ServiceUnavailableError extends AppError {
  readonly status = 503;
  readonly error = "service_unavailable";
  override readonly retryable = true;
}

/** 503: the job queue (Redis) did not take a prompt in time; what needs it now can be retried. */
export class QueueUnavailableError extends ServiceUnavailableError {
  constructor(cause?: unknown) {
    super("The job queue is unavailable; retry shortly.", { cause });
  }
}

/** 500 by contract: the spec fixes 500 for status reads of an unknown payment id. */
export class PaymentLookupError extends AppError {
  readonly status = 500;
  readonly error = "payment_not_found";
  constructor(paymentId: string) {
    // Any string reaches here (the spec answers 500 for every id that does not exist): echo a bounded part.
    super(`No payment with id ${paymentId.length > 100 ? `${paymentId.slice(0, 100)}…` : paymentId}.`);
  }
}

/** 503: the operator cannot pay a sweep's or refund's fees; they wait until it is funded (health says so). */
export class OperatorBalanceLowError extends ServiceUnavailableError {
  constructor(network: string, balance: bigint, needed: bigint, unit = "wei") {
    super(`The operator's balance on ${network} (${balance} ${unit}) is below the ${needed} ${unit} a sweep needs; sweeps wait until it is funded.`);
  }
}

/** 503: no current exchange rate (source down, rate stale or missing); the payment was not created. */
export class RateUnavailableError extends ServiceUnavailableError {
  override readonly code = "RATE_UNAVAILABLE";
}

/** 400: a sandbox simulation on a payment that is no longer pending (spec: "Payment already failed"). */
export class PaymentNotPendingError extends AppError {
  readonly status = 400;
  readonly error = "invalid_state";
}

/** 403: the agent's spending policy forbids this payment; `code` names the rule (AGENT_DAILY_LIMIT, …). */
export class AgentPolicyError extends ForbiddenError {
  override readonly code: string;
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
    this.code = `AGENT_${rule.toUpperCase()}`;
  }
}

/**
 * 422: the bridge has no route for this origin, destination and amount (bridge minimums are
 * the usual cause). The body's `error` is the bridge's own explanation (spec: NO_ROUTE).
 */
export class BridgeRouteError extends AppError {
  readonly status = 422;
  readonly error: string;
  override readonly code = "NO_ROUTE";
  constructor(
    bridgeMessage: string,
    /** The bridge's machine code (Relay's `errorCode`, e.g. AMOUNT_TOO_LOW), for logs. */
    readonly bridgeCode?: string,
  ) {
    super("The bridge has no route for this origin chain, token and amount.");
    this.error = bridgeMessage;
  }
}

/** 422: customers cannot pay from this origin chain (not EVM, or the bridge does not serve it). */
export class OriginNotSupportedError extends AppError {
  readonly status = 422;
  readonly error = "origin_not_supported";
  override readonly code = "ORIGIN_NOT_SUPPORTED";
}

/** 422: a refund on the origin chain could not be arranged, so the payment was not created. */
export class OriginRefundNotSupportedError extends AppError {
  readonly status = 422;
  readonly error = "origin_refund_not_supported";
  override readonly code = "ORIGIN_REFUND_NOT_SUPPORTED";
}

/** 422: the merchant has no working settlement destination for this route. */
export class NoDestinationError extends AppError {
  readonly status = 422;
  readonly error = "no_destination";
  override readonly code = "NO_DESTINATION";
}

/**
 * 502: the bridge failed us (5xx, rate limit after retries, timeout, an answer we cannot
 * read). Nothing was created on our side; safe to retry — unless the caller says the bridge
 * refused the request itself (`retryable: false`: a status read answered a 4xx, a revoked key,
 * an id it does not know; asking again at once gets the same answer, so a job gives up and
 * the periodic recheck asks again later).
 */
export class BridgeUnavailableError extends AppError {
  readonly status = 502;
  readonly error = "bridge_unavailable";
  override readonly retryable: boolean;
  /** The bridge's machine code, when it sent one (Relay's `errorCode`). */
  readonly bridgeCode: string | undefined;
  /** The bridge's HTTP status, when it answered at all. */
  readonly httpStatus: number | undefined;

  constructor(
    readonly bridge: string,
    reason: string,
    options?: { cause?: unknown; bridgeCode?: string; httpStatus?: number; retryable?: boolean },
  ) {
    super(`The bridge (${bridge}) failed: ${reason}`, options);
    this.bridgeCode = options?.bridgeCode;
    this.httpStatus = options?.httpStatus;
    this.retryable = options?.retryable ?? true;
  }
}

/** 401: a bridge webhook whose signature, timestamp or body does not verify; it is not acted on. */
export class BridgeWebhookError extends AppError {
  readonly status = 401;
  readonly error = "invalid_webhook_signature";
}
