/**
 * Benchmark (not a test): `npm run bench:scale -- [payments=5000]`.
 * One API and one worker, then 2 APIs and 4 workers (`dist/role.js api|worker`, each
 * its own process) on the same Postgres server and Redis, each setup on a fresh database:
 *  - creation: `payments` creates over HTTP from 64 clients spread over the APIs;
 *  - reconcile: all of them paid in one block (`PaymentSettled` rows as Ponder writes
 *    them, `bench/lib/pipeline.ts`) → all completed, payments/s;
 *  - proof that no job ran twice to effect: exactly one event of each kind per payment
 *    (created, detected, confirmed, completed), one delivery row per event, each webhook
 *    received once by the local receiver, and no sweep rows (contract payments land at
 *    the merchant's wallet: there is nothing to sweep).
 */
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import { startPipeline, VIEWS_SCHEMA } from "./lib/pipeline.ts";
import { benchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? 5_000);
const EVENTS = ["payment.created", "payment.detected", "payment.confirmed", "payment.completed"];

async function run(apis: number, workers: number) {
  const stack = await benchStack({ env: { INDEXER_VIEWS_SCHEMA: VIEWS_SCHEMA } });
  try {
    const merchant = await stack.seedMerchant();
    const pipeline = await startPipeline(stack);
    const apiRoles = [];
    for (let i = 0; i < apis; i++) apiRoles.push(await stack.startRole("api"));
    await pipeline.registerWebhook(apiRoles[0]!.url, merchant);
    for (let i = 0; i < workers; i++) await stack.startRole("worker");
    const urls = apiRoles.map((a) => a.url);
    await pipeline.create(urls, merchant, 200, 64, "warm"); // JIT and pools, not counted
    const created = await pipeline.create(urls, merchant, N, 64, "scale");
    const paid = await pipeline.pay([...created.ids]);
    // The warm-up payments stay pending (not paid): only the measured N complete.
    const completing = await pipeline.completed(N, paid.at);
    const delivering = await pipeline.delivered(N * 4 + 200);
    const received = pipeline.deliveries();
    const [c] = await queryRows<Record<string, string>>(
      stack.db,
      sql`select
        (select count(*) from payments where status = 'completed')::text as completed,
        (select count(*) from (select payment_id, type from payment_events group by 1, 2 having count(*) <> 1) d)::text as repeated_events,
        (select count(*) from (select p.id from payments p left join payment_events e on e.payment_id = p.id and e.type = any(${sql.param(EVENTS)}::text[])
            where p.status = 'completed' group by p.id having count(e.id) <> 4) d)::text as payments_without_4_events,
        (select count(*) from payment_events)::text as events,
        (select count(*) from (select event_id from webhook_deliveries group by 1 having count(*) <> 1) d)::text as repeated_deliveries,
        (select count(*) from webhook_deliveries)::text as deliveries,
        (select count(*) from webhook_deliveries where status = 'delivered')::text as delivered,
        (select count(*) from transfers_out)::text as sweeps`,
    );
    pipeline.stop();
    const ok =
      Number(c!.completed) === N &&
      c!.repeated_events === "0" &&
      c!.payments_without_4_events === "0" &&
      Number(c!.events) === 4 * N + 200 &&
      c!.repeated_deliveries === "0" &&
      Number(c!.deliveries) === 4 * N + 200 &&
      received.total === received.distinct &&
      c!.sweeps === "0";
    return {
      line: `${apis} API + ${workers} worker${workers > 1 ? "s" : ""}: ${(N / created.seconds).toFixed(0)} creates/s; paid → all ${N} completed in ${completing.toFixed(2)} s (${(N / completing).toFixed(0)} payments/s); all webhooks ${delivering.toFixed(1)} s later`,
      counts: `  counts: ${c!.completed} completed, ${c!.events} events (${c!.repeated_events} kinds repeated for a payment, ${c!.payments_without_4_events} completed payments without exactly created/detected/confirmed/completed), ${c!.deliveries} delivery rows (${c!.repeated_deliveries} events with more than one), ${c!.delivered} delivered, ${received.distinct} webhooks received (${received.total - received.distinct} twice), ${c!.sweeps} sweeps → ${ok ? "no job ran twice to effect" : "MISMATCH"}`,
      ok,
    };
  } finally {
    await stack.close();
  }
}

const single = await run(1, 1);
console.log(single.line + "\n" + single.counts);
const scaled = await run(2, 4);
console.log(scaled.line + "\n" + scaled.counts);
console.log(`\n${N} payments; 2+4 vs 1+1 on one Postgres and Redis (2-core machine shared with other work):\n  ${single.line}\n${single.counts}\n  ${scaled.line}\n${scaled.counts}`);
if (!single.ok || !scaled.ok) process.exit(1);
