import { createHmac, timingSafeEqual } from "node:crypto";
import { BRIDGE_PROGRESS, type BridgeProgress } from "../../../domain/bridgeStatus.ts";
import { BridgeWebhookError } from "../../../domain/errors.ts";
import { isRecord, stringField } from "./readJson.ts";

/** What a verified `request.status.updated` webhook tells us: which request to read again. */
export type RelayWebhookEvent = {
  requestId: string;
  /** Relay's status in the event; null for a value this code does not know (still worth a read). */
  progress: BridgeProgress | null;
  /** `data.depositAddress.address`, for deposit-address requests. */
  depositAddress: string | null;
  /** `data.referrer`: the `referrer` sent with the quote (our payment id). */
  referrer: string | null;
};

export type VerifyRelayWebhookInput = {
  apiKey: string;
  /** `X-Signature-Timestamp` as received. */
  timestampHeader: string | null | undefined;
  /** `X-Signature-SHA256` as received. */
  signatureHeader: string | null | undefined;
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string;
  now?: Date;
  /** How far the timestamp may be from now, either way (default 300 s). */
  toleranceSeconds?: number;
};

/** Above this a timestamp must be in milliseconds (1e11 seconds is the year 5138). */
const MILLISECONDS_FROM = 1e11;

/**
 * Checks a Relay webhook (docs.relay.link, "Webhooks"): `X-Signature-SHA256` must be the hex
 * HMAC-SHA256 of `${X-Signature-Timestamp}.${body}` keyed by the API key, compared in
 * constant time, and the timestamp within `toleranceSeconds` of now (a replay of an old
 * delivery is refused). Returns the event for `request.status.updated`, null for any other
 * event (acknowledge and ignore); throws BridgeWebhookError when it does not verify.
 *
 * The docs call the header a "Unix timestamp" without a unit while the body's own
 * `timestamp` is in milliseconds, so both are accepted. An event is never evidence by
 * itself: it only tells the service which request to read with `status()`.
 */
export function verifyRelayWebhook(input: VerifyRelayWebhookInput): RelayWebhookEvent | null {
  const timestamp = input.timestampHeader?.trim() ?? "";
  const signature = input.signatureHeader?.trim() ?? "";
  if (!/^\d{1,16}$/.test(timestamp)) throw new BridgeWebhookError("Missing or malformed X-Signature-Timestamp header.");
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) throw new BridgeWebhookError("Missing or malformed X-Signature-SHA256 header.");

  const expected = createHmac("sha256", input.apiKey).update(`${timestamp}.${input.rawBody}`).digest();
  if (!timingSafeEqual(Buffer.from(signature, "hex"), expected)) throw new BridgeWebhookError("The webhook signature does not match.");

  const sentAtMs = Number(timestamp) >= MILLISECONDS_FROM ? Number(timestamp) : Number(timestamp) * 1000;
  const toleranceMs = (input.toleranceSeconds ?? 300) * 1000;
  if (Math.abs((input.now ?? new Date()).getTime() - sentAtMs) > toleranceMs) throw new BridgeWebhookError("The webhook timestamp is outside the tolerance.");

  let payload: unknown;
  try {
    payload = JSON.parse(input.rawBody);
  } catch {
    throw new BridgeWebhookError("The webhook body is not JSON.");
  }
  if (!isRecord(payload)) throw new BridgeWebhookError("The webhook body is not an object.");
  if (payload.event !== "request.status.updated") return null;
  const data = isRecord(payload.data) ? payload.data : {};
  const requestId = stringField(data.requestId);
  if (!requestId) throw new BridgeWebhookError("The webhook names no data.requestId.");
  const status = data.status;
  return {
    requestId,
    progress: (BRIDGE_PROGRESS as readonly unknown[]).includes(status) ? (status as BridgeProgress) : null,
    depositAddress: (isRecord(data.depositAddress) && stringField(data.depositAddress.address)) || null,
    referrer: stringField(data.referrer) ?? null,
  };
}
