import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Encrypts secrets the service must read back (webhook signing secrets: they sign, so
 * they cannot be hashed like API secrets) with AES-256-GCM under SECRETS_KEY. A
 * database dump, backup or analyst's read access then reveals no usable secret.
 *
 * Stored form: `enc:v1:<key id>:<base64 of iv ‖ ciphertext ‖ tag>`. The key id (first
 * 8 hex digits of the key's SHA-256) makes a wrong key a clear error, not garbage.
 */
export type SecretBox = { seal(plain: string): string; open(stored: string): string; keyId: string };

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretKeyMismatchError extends Error {
  override name = "SecretKeyMismatchError";
}

export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error(`a secrets key is 32 bytes, got ${key.length}`);
  const keyId = createHash("sha256").update(key).digest("hex").slice(0, 8);
  return {
    keyId,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `${PREFIX}${keyId}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64")}`;
    },
    open(stored) {
      // Written before encryption existed (or by hand): returned as it is.
      if (!stored.startsWith(PREFIX)) return stored;
      const [id, payload] = stored.slice(PREFIX.length).split(":");
      if (id !== keyId) throw new SecretKeyMismatchError(`a secret was encrypted with another SECRETS_KEY (key id ${id}, this one is ${keyId})`);
      const bytes = Buffer.from(payload ?? "", "base64");
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new SecretKeyMismatchError("a stored secret is truncated");
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretKeyMismatchError("a stored secret failed authentication (altered, or another key)");
      }
    },
  };
}

/** SECRETS_KEY's text: 32 bytes as base64 (`openssl rand -base64 32`) or 64 hex digits. */
export function parseSecretsKey(text: string): Uint8Array | null {
  const trimmed = text.trim();
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed.replace(/^0x/, ""), "hex");
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed.replaceAll("-", "+").replaceAll("_", "/"), "base64");
  return bytes.length === 32 ? bytes : null;
}

/**
 * The key used when SECRETS_KEY is unset outside production (sandbox, tests). It is
 * public, so it protects nothing: production refuses to start without SECRETS_KEY.
 */
export const DEVELOPMENT_SECRETS_KEY: Uint8Array = createHash("sha256").update("stablepay development secrets key (public, not for production)").digest();
