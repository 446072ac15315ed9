import { createHash, timingSafeEqual } from "node:crypto";

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Whether an `Authorization` header carries the operator token: `Bearer <token>`
 * (Prometheus' `authorization` setting, scripts) or HTTP Basic with the token as the
 * password and any user name (a browser opening the queue dashboard asks for it).
 * Compared in constant time.
 */
export function hasOperatorToken(authorization: string | null | undefined, token: string): boolean {
  if (!authorization) return false;
  const [scheme, value = ""] = authorization.trim().split(/\s+/, 2);
  let presented: string | null = null;
  if (scheme?.toLowerCase() === "bearer") presented = value;
  else if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    presented = colon >= 0 ? decoded.slice(colon + 1) : null;
  }
  return presented !== null && presented.length > 0 && timingSafeEqual(digest(presented), digest(token));
}

/** The challenge sent with a 401, so a browser offers its password prompt. */
export const OPERATOR_CHALLENGE = 'Basic realm="stablepay operators", charset="UTF-8"';
