import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Mode } from "./mode.ts";

export type CredentialKind = "public" | "secret";

const PREFIX = { public: "pk", secret: "sk" } as const;

/** Reads kind and mode from a key's prefix (`pk_test_`, `sk_live_`, …); null when malformed. */
export function parseKeyPrefix(key: string): { kind: CredentialKind; mode: Mode } | null {
  const match = /^(pk|sk)_(test|live)_[A-Za-z0-9]{16,64}$/.exec(key);
  if (!match) return null;
  return { kind: match[1] === "pk" ? "public" : "secret", mode: match[2] as Mode };
}

const randomToken = (bytes: number) =>
  randomBytes(bytes).toString("base64url").replace(/[-_]/g, "").slice(0, 32).padEnd(32, "0");

/** A new key (and, for API keys, its secret). The plain text is shown once and never stored. */
export function generateCredential(kind: CredentialKind, mode: Mode): { key: string; secret: string | null } {
  const key = `${PREFIX[kind]}_${mode}_${randomToken(32)}`;
  return { key, secret: kind === "secret" ? randomBytes(32).toString("base64url") : null };
}

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

/** Compares a presented secret with a stored SHA-256 hex digest in constant time. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(sha256Hex(presented), "hex");
  const b = Buffer.from(storedHash, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What is safe to show of a key in listings and logs. */
export const keyDisplayPrefix = (key: string) => `${key.slice(0, 12)}…`;
