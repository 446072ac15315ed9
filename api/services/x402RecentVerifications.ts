import { createHash } from "node:crypto";
import type { Config } from "../../config/index.ts";
import type { AuthContext } from "../plugins/auth.ts";
import type { X402Request } from "./x402Request.ts";

/** How long a verification stands in for the settle's own (the resource server's work happens in between). */
const STANDS_MS = 60_000;
const ENTRIES = 20_000;

type Remembered<T> = { at: number; verified: T };
const byConfig = new WeakMap<Config, Map<string, Remembered<unknown>>>();
const recentOf = (config: Config) => {
  let recent = byConfig.get(config);
  if (!recent) byConfig.set(config, (recent = new Map()));
  return recent;
};

/** What a verification is known by: the merchant, the mode, the agent header and the exact payload and requirements. */
function keyOf(auth: AuthContext, agentHeader: string | undefined, request: X402Request): string {
  const text = JSON.stringify([auth.merchantId, auth.mode, agentHeader ?? null, request.paymentPayload, request.paymentRequirements]);
  return createHash("sha256").update(text).digest("base64");
}

/**
 * x402's flow is verify, serve, settle, with the same payload: the settle that follows a
 * passed verify in this process takes that verification (once, within a minute) instead of
 * reading the chain and the database again. Nothing is trusted that could have changed
 * meanwhile: the settle's transaction enforces the agent's policy locked and takes the
 * authorization once; the worker simulates the settlement contract's call (signature, window,
 * balance, nonce at the token) right before sending it. The memory is bounded (oldest
 * dropped first): a merchant verifying without settling can only make settles verify again.
 */
export function rememberVerified<T>(config: Config, auth: AuthContext, agentHeader: string | undefined, request: X402Request, verified: T): void {
  const recent = recentOf(config);
  if (recent.size >= ENTRIES) recent.delete(recent.keys().next().value!);
  recent.set(keyOf(auth, agentHeader, request), { at: performance.now(), verified });
}

/** The verification a settle of this request may take (taken: a second settle verifies again), if one stands. */
export function takeVerified<T>(config: Config, auth: AuthContext, agentHeader: string | undefined, request: X402Request): T | undefined {
  const recent = recentOf(config);
  const key = keyOf(auth, agentHeader, request);
  const remembered = recent.get(key);
  if (!remembered) return undefined;
  recent.delete(key);
  return performance.now() - remembered.at <= STANDS_MS ? (remembered.verified as T) : undefined;
}
