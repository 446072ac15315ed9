import { describe, expect, test } from "bun:test";
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKey, SecretKeyMismatchError } from "../../domain/secretBox.ts";

const key = Buffer.alloc(32, 1);
const box = createSecretBox(key);

describe("createSecretBox", () => {
  test("seal then open gives the secret back", () => {
    for (const secret of ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "", "ü ✓ 🎉", "x".repeat(10_000)]) {
      expect(box.open(box.seal(secret))).toBe(secret);
    }
  });

  test("the sealed form names the scheme and the key, and holds nothing of the secret", () => {
    const sealed = box.seal("whsec_secret-value");
    expect(sealed).toMatch(new RegExp(`^enc:v1:${box.keyId}:[A-Za-z0-9+/]+=*$`));
    expect(sealed).not.toContain("whsec_");
    expect(box.keyId).toMatch(/^[0-9a-f]{8}$/);
  });

  test("sealing twice gives different text (a fresh IV each time)", () => {
    expect(box.seal("same")).not.toBe(box.seal("same"));
  });

  test("another key is refused by name, not decrypted to garbage", () => {
    const other = createSecretBox(Buffer.alloc(32, 2));
    expect(() => other.open(box.seal("s"))).toThrow(SecretKeyMismatchError);
    expect(() => other.open(box.seal("s"))).toThrow(/another SECRETS_KEY/);
  });

  test("altered or truncated ciphertext fails authentication", () => {
    const sealed = box.seal("whsec_abc");
    const payload = Buffer.from(sealed.split(":")[3]!, "base64");
    payload[payload.length - 20]! ^= 1;
    const altered = `enc:v1:${box.keyId}:${payload.toString("base64")}`;
    expect(() => box.open(altered)).toThrow(/failed authentication/);
    expect(() => box.open(`enc:v1:${box.keyId}:AAAA`)).toThrow(/truncated/);
  });

  test("a value stored before encryption is read as it is", () => {
    expect(box.open("whsec_legacy")).toBe("whsec_legacy");
  });

  test("a key must be 32 bytes", () => {
    expect(() => createSecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe("parseSecretsKey", () => {
  test("base64, base64url and hex (with or without 0x) of 32 bytes", () => {
    expect(parseSecretsKey(key.toString("base64"))).toEqual(new Uint8Array(key));
    expect(parseSecretsKey(Buffer.alloc(32, 255).toString("base64url"))).toEqual(new Uint8Array(Buffer.alloc(32, 255)));
    expect(parseSecretsKey(key.toString("hex"))).toEqual(new Uint8Array(key));
    expect(parseSecretsKey(`0x${key.toString("hex")}`)).toEqual(new Uint8Array(key));
    expect(parseSecretsKey(`  ${key.toString("base64")}\n`)).toEqual(new Uint8Array(key));
  });

  test.each(["", "short", Buffer.alloc(31).toString("base64"), Buffer.alloc(33).toString("base64"), "z".repeat(64), "not base64 at all!!"])(
    "refuses %p",
    (text) => {
      expect(parseSecretsKey(text)).toBeNull();
    },
  );

  test("the development key is 32 bytes and fixed", () => {
    expect(DEVELOPMENT_SECRETS_KEY.length).toBe(32);
    expect(createSecretBox(DEVELOPMENT_SECRETS_KEY).keyId).toBe(createSecretBox(DEVELOPMENT_SECRETS_KEY).keyId);
  });
});
