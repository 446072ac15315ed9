import { Secret, TOTP } from "otpauth";
import type { DashboardUserRow } from "../../db/dashboardUsers.ts";

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

/** Whether the TOTP code is right now (one 30 s step either side for clocks that drift). */
export function totpMatches(secret: string, code: string): boolean {
  const digits = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(digits)) return false;
  if (!/^[A-Z2-7]{16,}=*$/.test(secret)) return false;
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).validate({ token: digits, window: 1 }) !== null;
}

/**
 * Whether these are the user's password (and TOTP code when the user has TOTP on). An absent
 * user, or one who never set a password, takes the same time and gets the same false.
 */
export async function credentialsMatch(user: DashboardUserRow | undefined, password: string, totpCode: string): Promise<boolean> {
  const bounded = password.slice(0, MAX_PASSWORD_LENGTH);
  const hash = user?.passwordHash ?? (await decoyHash());
  const passwordOk = await Bun.password.verify(bounded, hash).catch(() => false);
  if (!user?.passwordHash || !passwordOk) return false;
  return user.totpSecret ? totpMatches(user.totpSecret, totpCode) : true;
}
