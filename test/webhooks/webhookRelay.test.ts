import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Queue } from "bullmq";
import { sql } from "drizzle-orm";

import { holdAdvisoryLock } from "../../harness/heldAdvisoryLock.ts";
import { createDb, queryRows } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { recordPaymentEvents } from "../../db/paymentEvents.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { payments } from "../../db/schema/index.ts";
import { insertWebhookEndpoint } from "../../db/webhookEndpoints.ts";
import { enqueueDueDeliveries, startWebhookRelay } from "../../jobs/webhookRelay.ts";
import { assignFeedPositions } from "../../db/eventFeed.ts";
import { createLogger } from "../../config/logger.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { buildConfig } from "../../plugins/config.ts";

let database: TestDatabase;
let handle: ReturnType<typeof createDb>;
const config = buildConfig({ APP_ENV: "test", LOG_LEVEL: "silent" }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1")] });

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url);
}, 60_000);

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

// Found by bench:scale: the relay re-read the first page of due deliveries until the
// workers had attempted all but a page's worth, re-adding the same jobs in every worker.
test("one relay run enqueues each due delivery once, page after page, and stops; relays share the rows", async () => {
  const { db } = handle;
  const merchantId = (await createMerchant(db, { name: "Relay" })).id;
  await insertWebhookEndpoint(db, config.secrets, { merchantId, mode: "test", url: "https://example.com/hooks", events: ["*"] });
  await insertPaymentRows(db, Array.from({ length: 2_500 }, () => paymentRowFactory(config)(merchantId, { mode: "test" })));
  const rows: PaymentRow[] = await db.select().from(payments);
  for (let i = 0; i < rows.length; i += 500) {
    await db.transaction((tx) => recordPaymentEvents(tx as never, rows.slice(i, i + 500).map((p) => ({ payment: p, type: "payment.created" as const }))));
  }
  // Some share one due time to the microsecond: the cursor's id breaks the tie.
  await db.execute(sql`update webhook_deliveries set next_attempt_at = '2026-01-01T00:00:00.123456Z' where id in (select id from webhook_deliveries order by id limit 1200)`);
  const [count] = await queryRows<{ n: string }>(db, sql`select count(*)::text as n from webhook_deliveries where status = 'pending'`);
  expect(count!.n).toBe("2500");

  const added: string[] = [];
  const queue = { addBulk: async (jobs: Array<{ data: { deliveryId: string } }>) => void added.push(...jobs.map((j) => j.data.deliveryId)) } as unknown as Queue;
  const enqueued = await Promise.race([enqueueDueDeliveries(db, config, queue, 1_000), Bun.sleep(10_000).then(() => -1)]);
  expect(enqueued).toBe(2_500);
  expect(added.length).toBe(2_500);
  expect(new Set(added).size).toBe(2_500);

  // Found by bench:scale too: every worker's relay re-added the whole due backlog on each
  // wake-up. Within the lease (the re-drive interval) another run, as in another worker,
  // finds nothing to add; two at once share the rows.
  expect(await enqueueDueDeliveries(db, config, queue, 1_000)).toBe(0);
  await db.execute(sql`update webhook_deliveries set relayed_until = now() - interval '1 second'`);
  const [a, b] = [[] as string[], [] as string[]];
  const into = (list: string[]) => ({ addBulk: async (jobs: Array<{ data: { deliveryId: string } }>) => void list.push(...jobs.map((j) => j.data.deliveryId)) }) as unknown as Queue;
  const [na, nb] = await Promise.all([enqueueDueDeliveries(db, config, into(a), 300), enqueueDueDeliveries(db, config, into(b), 300)]);
  expect(na + nb).toBe(2_500);
  expect(new Set([...a, ...b]).size).toBe(2_500);
  expect(a.length + b.length).toBe(2_500);
}, 60_000);

test("rows whose jobs could not be enqueued are claimable again at once", async () => {
  const { db } = handle;
  await db.execute(sql`update webhook_deliveries set relayed_until = null`);
  const down = { addBulk: async () => Promise.reject(new Error("Connection is closed.")) } as unknown as Queue;
  await expect(enqueueDueDeliveries(db, config, down, 1_000)).rejects.toThrow("Connection is closed.");
  const [held] = await queryRows<{ n: string }>(db, sql`select count(*)::text as n from webhook_deliveries where relayed_until > now()`);
  expect(held!.n).toBe("0");
  const added: string[] = [];
  const up = { addBulk: async (jobs: Array<{ data: { deliveryId: string } }>) => void added.push(...jobs.map((j) => j.data.deliveryId)) } as unknown as Queue;
  expect(await enqueueDueDeliveries(db, config, up, 1_000)).toBe(2_500);
}, 60_000);

// BUG: a session stuck holding the feed sequencer's lock (its host gone silent) held every
// relay on it: no webhook was enqueued anywhere, and each `GET /events` waited holding a connection.
test("a session stuck holding the feed lock holds back neither the relay's enqueueing nor the positioning call", async () => {
  const { db } = handle;
  await db.execute(sql`update webhook_deliveries set status = 'delivered'`);
  const stuck = createDb(database.url, { max: 1 });
  const holder = await holdAdvisoryLock(stuck.db, 726006);
  try {
    const merchantId = (await createMerchant(db, { name: "Stuck feed" })).id;
    await insertWebhookEndpoint(db, config.secrets, { merchantId, mode: "test", url: "https://example.com/stuck", events: ["*"] });
    const [p] = await insertPaymentRows(db, [paymentRowFactory(config)(merchantId, { mode: "test" })]);
    const row = (await db.select().from(payments).where(sql`id = ${p!.id}`))[0]!;
    await db.transaction((tx) => recordPaymentEvents(tx as never, [{ payment: row, type: "payment.created" }]));
    const added: string[] = [];
    const queue = { addBulk: async (jobs: Array<{ data: { deliveryId: string } }>) => void added.push(...jobs.map((j) => j.data.deliveryId)) } as unknown as Queue;
    const relay = startWebhookRelay({ config, db, logger: createLogger({ level: "silent" }), queue });
    try {
      const deadline = Date.now() + 3_000;
      while (added.length === 0 && Date.now() < deadline) await Bun.sleep(50);
      expect(added).toHaveLength(1);
      expect(await Promise.race([assignFeedPositions(db), Bun.sleep(2_000).then(() => "waited")])).toBe(0);
    } finally {
      await relay.stop();
    }
  } finally {
    holder.release();
    await holder.done;
    await stuck.close();
  }
  expect(await assignFeedPositions(db)).toBeGreaterThan(0); // let go: positioned
}, 30_000);
