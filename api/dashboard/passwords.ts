import { Secret, TOTP } from "otpauth";
import type { Db } from "../../db/client.ts";
import { claimTotpStep, type DashboardUserRow } from "../../db/dashboardUsers.ts";

/** Shortest password accepted when an invite is accepted (NIST 800-63B's minimum for a chosen one). */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest accepted: argon2 of megabytes would be a cheap way to spend our CPU. */
export const MAX_PASSWORD_LENGTH = 200;

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

// Verified when no user has the e-mail, so an unknown e-mail costs the same time as a wrong password.
let decoy: Promise<string> | undefined;
const decoyHash = () => (decoy ??= hashPassword("decoy password never matches"));

/** A new TOTP secret (160 random bits, RFC 4226's recommended size), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://` URI an authenticator app scans: issuer "Stablepay dashboard", labelled with the e-mail. */
export const totpUri = (secret: string, email: string): string =>
  new TOTP({ issuer: "Stablepay dashboard", label: email, secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).toString();

const PERIOD_SECONDS = 30;

/** The time step (Unix seconds / 30) the TOTP code belongs to, if it is right now (one step either side for clocks that drift); else null. */
export function totpStep(secret: string, code: string, now = Date.now()): number | null {
  const digits = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(digits)) return null;
  if (!/^[A-Z2-7]{16,}=*$/.test(secret)) return null;
  const delta = new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: PERIOD_SECONDS }).validate({ token: digits, window: 1, timestamp: now });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
}


/**
 * Whether these are the user's password (and TOTP code when the user has TOTP on). An absent
 * user, or one who never set a password, takes the same time and gets the same false. A TOTP
 * code is accepted once: its time step is then taken (`claimTotpStep`), so a code seen over a
 * shoulder or in a proxy's log cannot be used again within its window.
 */
export async function credentialsMatch(db: Db, user: DashboardUserRow | undefined, password: string, totpCode: string): Promise<boolean> {
  const bounded = password.slice(0, MAX_PASSWORD_LENGTH);
  const hash = user?.passwordHash ?? (await decoyHash());
  const passwordOk = await Bun.password.verify(bounded, hash).catch(() => false);
  if (!user?.passwordHash || !passwordOk) return false;
  if (!user.totpSecret) return true;
  const step = totpStep(user.totpSecret, totpCode);
  return step !== null && (await claimTotpStep(db, user.id, step));
}
