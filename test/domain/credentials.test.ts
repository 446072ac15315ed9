import { describe, expect, test } from "bun:test";
import { generateCredential, keyDisplayPrefix, parseKeyPrefix, secretMatches, sha256Hex } from "../../domain/credentials.ts";

const body32 = "AbCdEfGhIjKlMnOpQrStUvWxYz012345";

describe("parseKeyPrefix", () => {
  const valid: Array<[string, { kind: "public" | "secret"; mode: "test" | "live" }]> = [
    [`pk_test_${body32}`, { kind: "public", mode: "test" }],
    [`pk_live_${body32}`, { kind: "public", mode: "live" }],
    [`sk_test_${body32}`, { kind: "secret", mode: "test" }],
    [`sk_live_${body32}`, { kind: "secret", mode: "live" }],
    [`pk_live_${"a".repeat(16)}`, { kind: "public", mode: "live" }],
    [`sk_test_${"Z9".repeat(32)}`, { kind: "secret", mode: "test" }],
  ];
  for (const [key, expected] of valid) {
    test(`reads ${key.slice(0, 8)} (${key.length - 8} characters)`, () => expect(parseKeyPrefix(key)).toEqual(expected));
  }

  const malformed: Array<[string, string]> = [
    ["empty", ""],
    ["prefix only", "pk_test_"],
    ["15 characters after the prefix", `pk_test_${"a".repeat(15)}`],
    ["65 characters after the prefix", `sk_live_${"a".repeat(65)}`],
    ["unknown kind", `rk_live_${body32}`],
    ["unknown mode", `pk_prod_${body32}`],
    ["uppercase prefix", `PK_LIVE_${body32}`],
    ["dash in the body", `pk_live_${body32.slice(0, 20)}-${body32.slice(21)}`],
    ["underscore in the body", `pk_live_${body32.slice(0, 20)}_${body32.slice(21)}`],
    ["leading space", ` pk_live_${body32}`],
    ["trailing newline", `pk_live_${body32}\n`],
    ["missing separator", `pklive_${body32}`],
  ];
  for (const [what, key] of malformed) {
    test(`rejects: ${what}`, () => expect(parseKeyPrefix(key)).toBeNull());
  }
});

describe("generateCredential", () => {
  test("a public key has the pk_<mode>_ prefix, 32 characters and no secret", () => {
    for (const mode of ["test", "live"] as const) {
      const { key, secret } = generateCredential("public", mode);
      expect(key).toMatch(new RegExp(`^pk_${mode}_[A-Za-z0-9]{32}$`));
      expect(secret).toBeNull();
      expect(parseKeyPrefix(key)).toEqual({ kind: "public", mode });
    }
  });

  test("an API key has the sk_<mode>_ prefix and a 256-bit base64url secret", () => {
    for (const mode of ["test", "live"] as const) {
      const { key, secret } = generateCredential("secret", mode);
      expect(key).toMatch(new RegExp(`^sk_${mode}_[A-Za-z0-9]{32}$`));
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret!, "base64url").length).toBe(32);
      expect(parseKeyPrefix(key)).toEqual({ kind: "secret", mode });
    }
  });

  test("keys and secrets are unique", () => {
    const issued = Array.from({ length: 200 }, () => generateCredential("secret", "live"));
    expect(new Set(issued.map((c) => c.key)).size).toBe(200);
    expect(new Set(issued.map((c) => c.secret)).size).toBe(200);
    const publicKeys = Array.from({ length: 200 }, () => generateCredential("public", "test").key);
    expect(new Set(publicKeys).size).toBe(200);
  });
});

describe("sha256Hex and secretMatches", () => {
  test("sha256Hex matches the FIPS 180-2 vectors", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  test("the right secret matches its stored hash", () => {
    const { secret } = generateCredential("secret", "live");
    expect(secretMatches(secret!, sha256Hex(secret!))).toBe(true);
    expect(secretMatches("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")).toBe(true);
  });

  test("a wrong secret does not match", () => {
    const stored = sha256Hex("the-secret");
    expect(secretMatches("the-secreT", stored)).toBe(false);
    expect(secretMatches("the-secret ", stored)).toBe(false);
    expect(secretMatches("", stored)).toBe(false);
  });

  test("a stored hash of a different length never matches (and does not throw)", () => {
    const stored = sha256Hex("the-secret");
    expect(secretMatches("the-secret", stored.slice(0, 62))).toBe(false);
    expect(secretMatches("the-secret", `${stored}00`)).toBe(false);
    expect(secretMatches("the-secret", "")).toBe(false);
    expect(secretMatches("the-secret", "not hex at all")).toBe(false);
  });
});

test("keyDisplayPrefix shows the first 12 characters only", () => {
  expect(keyDisplayPrefix(`sk_live_${body32}`)).toBe("sk_live_AbCd…");
});
