import { describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { changedIds, changePayloads } from "../../db/paymentChanges.ts";

describe("payment-change notifications", () => {
  test("ids are batched into payloads under Postgres's 8000-byte limit, each id once", () => {
    const ids = Array.from({ length: 1001 }, () => randomUUID());
    const payloads = changePayloads([...ids, ids[0]!, ids[500]!]);
    expect(payloads).toHaveLength(6);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    expect(payloads.flatMap(changedIds)).toEqual(ids);
    expect(changePayloads([])).toEqual([]);
  });

  test("a payload's ids; anything else is dropped", () => {
    const id = randomUUID();
    expect(changedIds(`${id},junk,,`)).toEqual([id]);
    expect(changedIds("")).toEqual([]);
  });
});
