import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client.ts";
import { createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { createIndexedTables } from "../../harness/indexedTables.ts";
import type { benchStack } from "./stack.ts";

/** The views schema the roles read evidence from in the pipeline benchmarks (Ponder's table shapes, written by hand). */
export const VIEWS_SCHEMA = "bench_views";
/** Where the indexer's tables live, read through views in VIEWS_SCHEMA as Ponder publishes them. */
const PONDER_SCHEMA = "bench_ponder";

type Stack = Awaited<ReturnType<typeof benchStack>>;
type Merchant = Awaited<ReturnType<Stack["seedMerchant"]>>;

/**
 * The whole pipeline without a chain: payments are created over HTTP by the API roles,
 * "paid" by writing the `PaymentSettled` rows Ponder would write for them (and moving
 * its checkpoint past the confirmations), then the worker roles find, reconcile and
 * complete them and deliver their webhooks to a local receiver, as in production.
 * Contract payments land at the merchant's wallet, so there is nothing to sweep.
 */
export async function startPipeline(stack: Stack) {
  // Tables in one schema and views over them in another, as Ponder publishes them: the workers
  // install their commit trigger on the checkpoint's table and are woken by NOTIFY as in production
  // (with a table in the views schema they found no view, fell back to polling every 2 s and
  // reconnected to look again on each tick).
  await createPonderCheckpointTable(stack.db, PONDER_SCHEMA);
  await createIndexedTables(stack.db, PONDER_SCHEMA);
  await stack.db.execute(sql`create schema if not exists ${sql.identifier(VIEWS_SCHEMA)}`);
  for (const table of ["_ponder_checkpoint", "token_transfer", "settlement_payment"]) {
    await stack.db.execute(sql`create view ${sql.identifier(VIEWS_SCHEMA)}.${sql.identifier(table)} as select * from ${sql.identifier(PONDER_SCHEMA)}.${sql.identifier(table)}`);
  }
  let block = 10;
  await setIndexedBlock(stack.db, PONDER_SCHEMA, { name: "anvil", chainId: 31337 }, block);
  // Webhook receiver: counts each delivery by its webhook-id (a duplicate would show).
  const seen = new Map<string, number>();
  const receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      await request.text();
      const id = request.headers.get("webhook-id") ?? "";
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return new Response("ok");
    },
  });

  return {
    receiverUrl: `http://127.0.0.1:${receiver.port}/hooks`,
    deliveries: () => ({ distinct: seen.size, total: [...seen.values()].reduce((a, b) => a + b, 0) }),

    async registerWebhook(apiUrl: string, merchant: Merchant, events: string[] = ["*"]) {
      const r = await fetch(`${apiUrl}/api/v1/webhook-endpoints`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks`, events }),
      });
      if (r.status !== 201) throw new Error(`webhook endpoint: ${r.status} ${await r.text()}`);
    },

    /** Creates `count` payments over HTTP, `clients` at a time, spread over the API URLs; returns ids and seconds. */
    async create(apiUrls: string[], merchant: Merchant, count: number, clients: number, tag: string) {
      const ids: string[] = new Array(count);
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, client) => {
          const url = `${apiUrls[client % apiUrls.length]}/api/v1/payments/create`;
          for (let i = next++; i < count; i = next++) {
            const r = await fetch(url, {
              method: "POST",
              headers: { "content-type": "application/json", "x-public-key": merchant.publicKey, "idempotency-key": `${tag}-${i}` },
              body: JSON.stringify({ amount: "1.5", currency: "USDC", network: "anvil", orderId: `${tag}-${i}` }),
            });
            const body = (await r.json()) as { payment?: { id: string } };
            if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(body)}`);
            ids[i] = body.payment!.id;
          }
        }),
      );
      return { ids, seconds: (performance.now() - started) / 1000 };
    },

    /** Writes each payment's PaymentSettled in the next block, then the checkpoint 5 blocks on (past 3 confirmations). */
    async pay(ids: readonly string[]) {
      block++;
      const network = stack.network;
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < ids.length; i += 1_000) {
        const values = ids.slice(i, i + 1_000).map((id, j) => {
          const tx = `0x${id.replaceAll("-", "").padStart(64, "a")}`;
          return sql`(${`31337:${tx}:${j}`}, 31337, ${`0x${"0".repeat(32)}${id.replaceAll("-", "")}`}, ${"0x" + "c".repeat(40)}, ${network.tokens[0]!.address.toLowerCase()},
            ${"0x70997970c51812dc3a010c7d01b50e0d17dc79c8"}, ${"1500000"}, ${"0"}, ${network.settlementContract!.toLowerCase()}, ${block}, ${`0xb${block}`}, ${tx}, ${j}, ${now})`;
        });
        await stack.db.execute(sql`insert into ${sql.identifier(PONDER_SCHEMA)}.settlement_payment values ${sql.join(values, sql`, `)}`);
      }
      block += 5;
      await setIndexedBlock(stack.db, PONDER_SCHEMA, { name: "anvil", chainId: 31337 }, block);
      return { block, at: performance.now() };
    },

    /** Waits until `count` payments are completed; seconds from `since`. */
    async completed(count: number, since: number, timeoutMs = 900_000) {
      for (;;) {
        const [row] = await queryRows<{ n: string }>(stack.db, sql`select count(*)::text as n from payments where status = 'completed'`);
        if (Number(row!.n) >= count) return (performance.now() - since) / 1000;
        if (performance.now() - since > timeoutMs) throw new Error(`only ${row!.n} of ${count} payments completed`);
        await Bun.sleep(100);
      }
    },

    /** Waits until the receiver has had `count` distinct deliveries. */
    async delivered(count: number, timeoutMs = 900_000) {
      const since = performance.now();
      while (seen.size < count) {
        if (performance.now() - since > timeoutMs) throw new Error(`only ${seen.size} of ${count} webhooks delivered`);
        await Bun.sleep(100);
      }
      return (performance.now() - since) / 1000;
    },

    stop: () => receiver.stop(true),
  };
}
