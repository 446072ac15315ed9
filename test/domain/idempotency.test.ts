import { createHash } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { canonicalJson, fingerprint, idempotencyKeyOf } from "../../domain/idempotency.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("canonicalJson", () => {
  const cases: Array<[string, unknown, string]> = [
    ["keys sorted", { b: 1, a: 2 }, '{"a":2,"b":1}'],
    ["nested keys sorted at every level", { z: { y: 1, x: [{ b: 2, a: 1 }] }, a: null }, '{"a":null,"z":{"x":[{"a":1,"b":2}],"y":1}}'],
    ["arrays keep their order", { items: [3, 1, 2] }, '{"items":[3,1,2]}'],
    ["undefined values dropped from objects", { a: 1, b: undefined, c: { d: undefined } }, '{"a":1,"c":{}}'],
    ["undefined in an array is null, as JSON.stringify does", [1, undefined, 2], "[1,null,2]"],
    ["strings escaped as JSON", { 'q"uote': 'a"b\\c\n' }, '{"q\\"uote":"a\\"b\\\\c\\n"}'],
    ["non-ASCII kept", { name: "Zoë" }, '{"name":"Zoë"}'],
    ["empty object", {}, "{}"],
    ["empty array", [], "[]"],
    ["null", null, "null"],
    ["undefined alone", undefined, "null"],
    ["string", "x", '"x"'],
    ["number", 10.5, "10.5"],
    ["boolean", true, "true"],
    ["a payment body", { network: "base", currency: "USDC", amount: "10.50", metadata: { sku: "A1", cart: "7" } }, '{"amount":"10.50","currency":"USDC","metadata":{"cart":"7","sku":"A1"},"network":"base"}'],
  ];
  for (const [what, value, expected] of cases) {
    test(what, () => expect(canonicalJson(value)).toBe(expected));
  }
});

describe("fingerprint", () => {
  test("is the SHA-256 of the canonical JSON, 64 lowercase hex digits", () => {
    expect(fingerprint({})).toBe("44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
    expect(fingerprint(null)).toBe("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b");
    expect(fingerprint({ b: [1, 2], a: 1 })).toBe("8baa73198470c7bb4c3ce142a8fd651affc0310d878bb9bd159e37a573fb4874");
    const body = { amount: "10", currency: "USDC", network: "base" };
    expect(fingerprint(body)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprint(body)).toBe(sha256(canonicalJson(body)));
  });

  test("key order does not change it, at any depth", () => {
    const a = { amount: "10", currency: "USDC", metadata: { x: "1", y: "2" }, items: [{ sku: "A", qty: 1 }] };
    const b = { items: [{ qty: 1, sku: "A" }], metadata: { y: "2", x: "1" }, currency: "USDC", amount: "10" };
    expect(fingerprint(a)).toBe(fingerprint(b));
  });

  test("undefined values do not change it", () => {
    expect(fingerprint({ amount: "10", orderId: undefined, metadata: { a: "1", b: undefined } })).toBe(fingerprint({ amount: "10", metadata: { a: "1" } }));
  });

  test("array order, value types and nesting do change it", () => {
    const prints = [
      { items: [1, 2] },
      { items: [2, 1] },
      { amount: "10" },
      { amount: 10 },
      { amount: null },
      { metadata: { a: "1" } },
      { metadata: { a: { b: "1" } } },
      { metadata: "a" },
    ].map(fingerprint);
    expect(new Set(prints).size).toBe(prints.length);
  });
});

describe("idempotencyKeyOf", () => {
  const body = { amount: "10", currency: "USDC", network: "base", orderId: "order-1" };
  const hash = fingerprint(body);
  const cases: Array<[string, string | undefined | null, unknown, { key: string; requestHash: string }]> = [
    ["the header wins over orderId", "key-1", body, { key: "header:key-1", requestHash: hash }],
    ["the header is trimmed", "  key-1\t", body, { key: "header:key-1", requestHash: hash }],
    ["an empty header falls back to orderId", "", body, { key: "order:order-1", requestHash: hash }],
    ["a blank header falls back to orderId", "   ", body, { key: "order:order-1", requestHash: hash }],
    ["no header (undefined): orderId", undefined, body, { key: "order:order-1", requestHash: hash }],
    ["no header (null): orderId", null, body, { key: "order:order-1", requestHash: hash }],
    ["orderId is trimmed", undefined, { ...body, orderId: "  order-1 " }, { key: "order:order-1", requestHash: fingerprint({ ...body, orderId: "  order-1 " }) }],
    ["a numeric orderId", undefined, { amount: "10", orderId: 42 }, { key: "order:42", requestHash: fingerprint({ amount: "10", orderId: 42 }) }],
    ["an empty orderId falls back to the body", undefined, { amount: "10", orderId: "" }, { key: `body:${fingerprint({ amount: "10", orderId: "" })}`, requestHash: fingerprint({ amount: "10", orderId: "" }) }],
    ["a blank orderId falls back to the body", undefined, { amount: "10", orderId: "  " }, { key: `body:${fingerprint({ amount: "10", orderId: "  " })}`, requestHash: fingerprint({ amount: "10", orderId: "  " }) }],
    ["a null orderId falls back to the body", undefined, { amount: "10", orderId: null }, { key: `body:${fingerprint({ amount: "10", orderId: null })}`, requestHash: fingerprint({ amount: "10", orderId: null }) }],
    ["an object orderId falls back to the body", undefined, { amount: "10", orderId: { id: 1 } }, { key: `body:${fingerprint({ amount: "10", orderId: { id: 1 } })}`, requestHash: fingerprint({ amount: "10", orderId: { id: 1 } }) }],
    ["no header, no orderId: the body fingerprint", undefined, { amount: "10" }, { key: `body:${fingerprint({ amount: "10" })}`, requestHash: fingerprint({ amount: "10" }) }],
    ["a null body does not throw", undefined, null, { key: `body:${fingerprint(null)}`, requestHash: fingerprint(null) }],
    ["an undefined body does not throw", null, undefined, { key: `body:${fingerprint(undefined)}`, requestHash: fingerprint(undefined) }],
    ["a non-object body", undefined, "10", { key: `body:${fingerprint("10")}`, requestHash: fingerprint("10") }],
  ];
  for (const [what, header, requestBody, expected] of cases) {
    test(what, () => expect(idempotencyKeyOf(header, requestBody)).toStrictEqual(expected));
  }

  test("the request hash is always the whole body's, so a reused key with another body is detectable", () => {
    const first = idempotencyKeyOf("key-1", body);
    const second = idempotencyKeyOf("key-1", { ...body, amount: "11" });
    expect(second.key).toBe(first.key);
    expect(second.requestHash).not.toBe(first.requestHash);
    const byOrder = idempotencyKeyOf(undefined, { ...body, amount: "11" });
    expect(byOrder.key).toBe("order:order-1");
    expect(byOrder.requestHash).toBe(second.requestHash);
  });

  test("a header and an orderId with the same text do not collide", () => {
    const byHeader = idempotencyKeyOf("abc", { amount: "10" }).key;
    const byOrder = idempotencyKeyOf(undefined, { amount: "10", orderId: "abc" }).key;
    expect(byHeader).toBe("header:abc");
    expect(byOrder).toBe("order:abc");
    // Even text shaped like the other source's key stays apart.
    expect(idempotencyKeyOf("order:abc", { amount: "10" }).key).toBe("header:order:abc");
    expect(idempotencyKeyOf(undefined, { orderId: "header:abc" }).key).toBe("order:header:abc");
  });

  test("an orderId equal to a body fingerprint does not collide with the body key", () => {
    const bodyKey = idempotencyKeyOf(undefined, { amount: "10" }).key;
    const hex = bodyKey.slice("body:".length);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyOf(undefined, { orderId: hex }).key).toBe(`order:${hex}`);
    expect(idempotencyKeyOf(hex, {}).key).toBe(`header:${hex}`);
  });

  describe("body-only keys", () => {
    const base = { amount: "10.50", currency: "USDC", network: "base", metadata: { sku: "A1" } };
    const keyOf = (b: unknown) => idempotencyKeyOf(undefined, b).key;

    test("an identical retry, keys reordered, gets the same key", () => {
      expect(keyOf({ metadata: { sku: "A1" }, network: "base", currency: "USDC", amount: "10.50" })).toBe(keyOf(base));
      expect(keyOf({ ...base, customerEmail: undefined })).toBe(keyOf(base));
    });

    const variants: Array<[string, unknown]> = [
      ["amount", { ...base, amount: "10.51" }],
      ["amount written as a number", { ...base, amount: 10.5 }],
      ["currency", { ...base, currency: "USDT" }],
      ["network", { ...base, network: "polygon" }],
      ["nested metadata value", { ...base, metadata: { sku: "A2" } }],
      ["metadata key added", { ...base, metadata: { sku: "A1", cart: "1" } }],
      ["field added", { ...base, customerEmail: "a@example.com" }],
      ["field removed", { amount: "10.50", currency: "USDC", network: "base" }],
    ];
    for (const [what, changed] of variants) {
      test(`changing ${what} gives a new key`, () => expect(keyOf(changed)).not.toBe(keyOf(base)));
    }

    test("every variant's key is distinct from every other", () => {
      const keys = [base, ...variants.map(([, b]) => b)].map(keyOf);
      expect(new Set(keys).size).toBe(keys.length);
    });
  });
});
