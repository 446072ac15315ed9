import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createBatchedCreations } from "../../api/services/batchedCreations.ts";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import type { PaymentCreation } from "../../db/paymentCreations.ts";
import { writePaymentCreations } from "../../reconcile/index.ts";
import { insertPayments } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import { IdempotencyKeyReusedError } from "../../domain/errors.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { paymentRowFactory } from "../../harness/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Creations written in batches (`writePaymentCreations`, `createBatchedCreations`)
 * against real Postgres: one payment, one `payment.created` event and one stored
 * response per key, whatever mix of new, repeated, used and failing keys a batch holds.
 */
let api: TestApi;
let merchant: TestMerchant;
let row: ReturnType<typeof paymentRowFactory>;
beforeAll(async () => {
  api = await createTestApi({ networks: [anvilNetwork("http://127.0.0.1:1")] });
  merchant = await api.seedMerchant();
  row = paymentRowFactory(api.config);
}, 60_000);
afterAll(async () => {
  await api?.close();
});

let n = 0;
const creation = (key = `key-${++n}`, requestHash = "hash", over: Parameters<typeof row>[1] = {}): PaymentCreation => ({
  idempotency: { merchantId: merchant.id, mode: "test", scope: "payments.create", key, requestHash },
  payment: row(merchant.id, { mode: "test", ...over }),
  respond: (p) => ({ status: 201, body: { success: true, payment: { id: p.id, amount: p.amount.toString(), status: p.status } } }),
});
const paymentIdOf = (r: { body: unknown } | undefined) => (r?.body as { payment: { id: string } } | undefined)?.payment.id;
const counts = async (keys: string[]) => {
  const [c] = await queryRows<{ keys: number; payments: number; events: number; unanswered: number }>(
    api.db,
    sql`select
      (select count(*)::int from idempotency_keys where merchant_id = ${merchant.id} and key = any(${sql.param(keys)}::text[])) as keys,
      (select count(*)::int from payments p join idempotency_keys k on k.response_body -> 'payment' ->> 'id' = p.id::text where k.key = any(${sql.param(keys)}::text[])) as payments,
      (select count(*)::int from payment_events e join idempotency_keys k on k.response_body -> 'payment' ->> 'id' = e.payment_id::text
        where k.key = any(${sql.param(keys)}::text[]) and e.type = 'payment.created') as events,
      (select count(*)::int from idempotency_keys where merchant_id = ${merchant.id} and key = any(${sql.param(keys)}::text[]) and response_status is null) as unanswered`,
  );
  return c!;
};

describe("writePaymentCreations", () => {
  test("a batch writes each payment with its event and stored response, as the row was inserted", async () => {
    const batch = Array.from({ length: 20 }, () => creation());
    const answers = await writePaymentCreations(api.db, batch);
    expect(answers.map(paymentIdOf)).toEqual(batch.map((c) => c.payment.id!));
    expect(answers[0]).toEqual({ status: 201, body: { success: true, payment: { id: batch[0]!.payment.id!, amount: "1000000", status: "pending" } } });
    expect(await counts(batch.map((c) => c.idempotency.key))).toEqual({ keys: 20, payments: 20, events: 20, unanswered: 0 });
    const [stored] = await queryRows<{ response_status: number; id: string }>(
      api.db,
      sql`select response_status, response_body -> 'payment' ->> 'id' as id from idempotency_keys where key = ${batch[7]!.idempotency.key}`,
    );
    expect(stored).toEqual({ response_status: 201, id: batch[7]!.payment.id! });
  });

  test("amounts, dates and JSON columns are stored as their types (jsonb as objects SQL can read), and read back as inserted", async () => {
    const c = creation(undefined, "hash", { amount: 123_456_789_012_345_678_901_234_567_890n, metadata: { order: "A-1", "ключ": "значение" }, intentDeadline: new Date("2030-01-02T03:04:05.678Z") });
    await writePaymentCreations(api.db, [c]);
    const [stored] = await queryRows<{ amount: string; order: string; deadline: string; body: string; meta: string }>(
      api.db,
      sql`select p.amount::text, p.metadata ->> 'order' as order, to_char(p.intent_deadline at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') as deadline,
        jsonb_typeof(k.response_body) as body, jsonb_typeof(p.metadata) as meta
        from payments p join idempotency_keys k on k.key = ${c.idempotency.key} where p.id = ${c.payment.id!}`,
    );
    expect(stored).toEqual({ amount: "123456789012345678901234567890", order: "A-1", deadline: "2030-01-02 03:04:05.678", body: "object", meta: "object" });
    const [inserted] = await insertPayments(api.db, [row(merchant.id, { mode: "test", metadata: { a: "b" } })]);
    expect(inserted).toMatchObject({ status: "pending", amountReceived: 0n, confirmations: 0, metadata: { a: "b" }, isTest: true });
  });

  test("a key repeated within the batch, or used before, is left to the one-at-a-time path (undefined)", async () => {
    const used = creation();
    await writePaymentCreations(api.db, [used]);
    const first = creation("repeated");
    const again = creation("repeated");
    const fresh = creation();
    const refused = creation(used.idempotency.key);
    const answers = await writePaymentCreations(api.db, [first, refused, again, fresh]);
    expect(answers.map(paymentIdOf)).toEqual([first.payment.id!, undefined, undefined, fresh.payment.id!]);
    // The payments of keys it did not get are not kept.
    const left = await queryRows<{ id: string }>(api.db, sql`select id from payments where id = any(${sql.param([refused.payment.id!, again.payment.id!])}::uuid[])`);
    expect(left).toEqual([]);
    expect(await counts(["repeated", used.idempotency.key, fresh.idempotency.key])).toEqual({ keys: 3, payments: 3, events: 3, unanswered: 0 });
  });

  test("a batch that fails writes nothing", async () => {
    const good = creation();
    // A payment of a merchant that does not exist breaks the foreign key: the whole batch rolls back.
    const bad = { ...creation(), payment: row("00000000-0000-4000-8000-000000000000", { mode: "test" }) };
    await expect(writePaymentCreations(api.db, [good, bad])).rejects.toThrow();
    expect(await counts([good.idempotency.key, bad.idempotency.key])).toEqual({ keys: 0, payments: 0, events: 0, unanswered: 0 });
  });

  test("batches with the same keys in opposite orders, at once: no deadlock, one payment per key", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `crossed-${i}`);
    const forward = keys.map((k) => creation(k));
    const backward = [...keys].reverse().map((k) => creation(k));
    const [a, b] = await Promise.all([writePaymentCreations(api.db, forward), writePaymentCreations(api.db, backward)]);
    // Every key was claimed by exactly one of the two batches.
    const claimedBy = keys.map((_, i) => [a[i] !== undefined, b[keys.length - 1 - i] !== undefined]);
    expect(claimedBy.every(([x, y]) => x !== y)).toBe(true);
    expect(await counts(keys)).toEqual({ keys: 30, payments: 30, events: 30, unanswered: 0 });
  });
});

describe("createBatchedCreations", () => {
  const logger = createLogger({ level: "silent" });

  test("concurrent creates: new keys are written in batches, a repeated key is answered with the first payment, marked replayed", async () => {
    const creations = createBatchedCreations(api.db, logger, api.deps.prompts, { maxInFlight: 1, maxBatch: 16 });
    const batch = Array.from({ length: 40 }, () => creation());
    const repeats = Array.from({ length: 10 }, () => creation("same-key-at-once"));
    const results = await Promise.all([...batch, ...repeats].map((c) => creations.write(c)));
    expect(results.slice(0, 40).map(paymentIdOf)).toEqual(batch.map((c) => c.payment.id!));
    expect(results.slice(0, 40).every((r) => !r.replayed && r.status === 201)).toBe(true);
    const repeated = results.slice(40);
    expect(new Set(repeated.map(paymentIdOf)).size).toBe(1);
    expect(repeated.filter((r) => !r.replayed)).toHaveLength(1);
    expect(await counts([...batch.map((c) => c.idempotency.key), "same-key-at-once"])).toEqual({ keys: 41, payments: 41, events: 41, unanswered: 0 });
  });

  test("a key reused with another body is refused; a failed batch leaves its good creates to be written alone", async () => {
    const creations = createBatchedCreations(api.db, logger, api.deps.prompts);
    const original = creation("reused", "hash-a");
    const first = await creations.write(original);
    await expect(creations.write(creation("reused", "hash-b"))).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    expect((await creations.write(creation("reused", "hash-a"))).replayed).toBe(true);
    expect(paymentIdOf(await creations.write(creation("reused", "hash-a")))).toBe(paymentIdOf(first));

    const good = creation();
    const bad = { ...creation(), payment: row("00000000-0000-4000-8000-000000000000", { mode: "test" }) };
    const [written, failed] = await Promise.allSettled([creations.write(good), creations.write(bad)]);
    expect(written.status === "fulfilled" && paymentIdOf(written.value)).toBe(good.payment.id!);
    expect(failed.status).toBe("rejected");
    expect(await counts([good.idempotency.key, bad.idempotency.key])).toEqual({ keys: 1, payments: 1, events: 1, unanswered: 0 });
  });

  // BUG: a batch whose COMMIT reached the database but whose answer was lost (the connection
  // dropped) sent each creation down the one-at-a-time path, which found the key the batch had
  // just committed: the first and only answer was marked a replay, and no expiry was prompted.
  test("a batch committed whose answer was lost: each create's first answer is not a replay", async () => {
    let lose = true;
    const flaky = Object.create(api.db) as typeof api.db;
    flaky.transaction = (async (work: Parameters<typeof api.db.transaction>[0], config?: Parameters<typeof api.db.transaction>[1]) => {
      const result = await api.db.transaction(work, config);
      if (lose) {
        lose = false;
        throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "ECONNRESET" });
      }
      return result;
    }) as typeof api.db.transaction;
    const creations = createBatchedCreations(flaky, logger, api.deps.prompts);
    const batch = [creation(), creation()];
    const results = await Promise.all(batch.map((c) => creations.write(c)));
    expect(lose).toBe(false);
    expect(results.map(paymentIdOf)).toEqual(batch.map((c) => c.payment.id!));
    expect(results.map((r) => r.replayed)).toEqual([false, false]);
    // A true retry of the same key is still a replay.
    expect((await creations.write(creation(batch[0]!.idempotency.key))).replayed).toBe(true);
    expect(await counts(batch.map((c) => c.idempotency.key))).toEqual({ keys: 2, payments: 2, events: 2, unanswered: 0 });
  });
});

describe("merchant settings for creates", () => {
  test("read in batches, never stale: a wallet set before the call is in its answer; an unknown merchant is null", async () => {
    const creations = createBatchedCreations(api.db, createLogger({ level: "silent" }), api.deps.prompts);
    const other = await api.seedMerchant("Other");
    const network = api.config.networks.find((n) => n.shortName === "anvil")!;
    await setSettlementWallet(api.db, merchant.id, network.id, "0x1111111111111111111111111111111111111111");
    const [mine, theirs, nobody] = await Promise.all([
      creations.settings(merchant.id),
      creations.settings(other.id),
      creations.settings("00000000-0000-4000-8000-000000000000"),
    ]);
    expect(mine).toEqual({
      id: merchant.id,
      settlementCurrency: "USD",
      wallets: new Map([[network.id, "0x1111111111111111111111111111111111111111"]]),
      returnOrigins: { live: [], test: [] },
    });
    expect(theirs).toEqual({ id: other.id, settlementCurrency: "USD", wallets: new Map(), returnOrigins: { live: [], test: [] } });
    expect(nobody).toBeNull();
    await setSettlementWallet(api.db, merchant.id, network.id, "0x2222222222222222222222222222222222222222");
    expect((await creations.settings(merchant.id))!.wallets.get(network.id)).toBe("0x2222222222222222222222222222222222222222");
  });
});

describe("expiry prompts for creates", () => {
  test("concurrent ones become one delayed job per second of expiry, due at or after each payment's expiry", async () => {
    const creations = createBatchedCreations(api.db, createLogger({ level: "silent" }), api.deps.prompts);
    const queue = openQueue(api.config, QUEUES.reconcile);
    try {
      const base = Math.ceil(Date.now() / 1000) * 1000 + 600_000;
      const soon = ["a", "b", "c"].map((x, i) => ({ id: `00000000-0000-4000-8000-00000000000${i}`, at: new Date(base - 900 + i * 100), x }));
      const later = { id: "00000000-0000-4000-8000-000000000009", at: new Date(base + 5_000) };
      await Promise.all([...soon, later].map((d) => creations.expireAt(d.id, d.at)));
      const jobs = (await queue.getDelayed()).filter((j) => j.name === "expire" && (j.data as { paymentIds: string[] }).paymentIds.some((id) => id.startsWith("00000000-0000-4000-8000-00000000000")));
      const byIds = new Map(jobs.map((j) => [(j.data as { paymentIds: string[] }).paymentIds.join(), j]));
      expect([...byIds.keys()].sort()).toEqual([soon.map((d) => d.id).join(), later.id]);
      const dueAt = (ids: string) => byIds.get(ids)!.timestamp + byIds.get(ids)!.opts.delay!;
      expect(dueAt(soon.map((d) => d.id).join())).toBeGreaterThanOrEqual(base);
      // A second after the whole second its expiries round up to (as a single payment's job was).
      expect(dueAt(soon.map((d) => d.id).join())).toBeLessThanOrEqual(base + 1_000 + 100);
      expect(dueAt(later.id)).toBeGreaterThanOrEqual(base + 5_000);
    } finally {
      await queue.close();
    }
  });
});
