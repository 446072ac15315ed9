import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { queryRows } from "../../db/client.ts";
import { merchantWallet } from "../../harness/paymentChain.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: the worker process SIGKILLed WORKER_KILLS times at random points (while
 * starting, reconciling, signing and sending sweeps, waiting for receipts) while deposit
 * payments complete and are swept. Afterwards one worker runs undisturbed: every paid
 * deposit is completed and swept exactly once — on-chain transfers out of each deposit
 * address = its sweep rows = 1 — and nothing is left owed.
 */
const WORKER_KILLS = 100;
/** A kill comes this long after the worker was started: from mid-start-up to well into its work. */
const KILL_AFTER_MS = { min: 100, max: 1_600 };
const DEPOSITS = 24;
const UNITS = 1_000_000n;

let stack: FaultStack;

/** For a failure message: what is not done — payments, sweep rows — and the worker's warnings. */
async function stuck(paidIds: string[]): Promise<string> {
  const payments = await queryRows(stack.db, sql`
    select id, status, amount_received::text, confirmations, completing_block::text from payments where id in ${paidIds} and status <> 'completed'`);
  const sweeps = await queryRows(stack.db, sql`
    select payment_id, status, nonce::text, tx_hash, replaced_tx_hashes, error, updated_at from transfers_out where kind = 'sweep' and status <> 'confirmed'`);
  const warnings = stack.roles.worker
    .output()
    .split("\n")
    .filter((line) => /"level":(40|50|60)/.test(line))
    .slice(-30);
  return `not completed: ${JSON.stringify(payments)}\nsweeps not confirmed: ${JSON.stringify(sweeps)}\nworker warnings (last 30):\n${warnings.join("\n")}`;
}
beforeAll(async () => {
  stack = await startFaultStack();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

test(`worker SIGKILLed ${WORKER_KILLS} times mid-work: every deposit completed and swept exactly once`, async () => {
  const deposits: Array<{ id: string; depositAddress: Address }> = [];
  for (let i = 0; i < DEPOSITS; i++) deposits.push(await stack.createDeposit("1"));

  // The customer pays the deposits one by one while the worker is being killed.
  let paying = true;
  const payments = (async () => {
    for (const d of deposits) {
      await stack.pay(d.depositAddress, UNITS);
      await Bun.sleep(3_000);
      if (!paying) break;
    }
  })();

  const started = Date.now();
  for (let kill = 0; kill < WORKER_KILLS; kill++) {
    if (!stack.roles.worker.alive()) stack.roles.worker.start();
    await Bun.sleep(KILL_AFTER_MS.min + Math.random() * (KILL_AFTER_MS.max - KILL_AFTER_MS.min));
    await stack.roles.worker.kill("SIGKILL");
  }
  const killing = Date.now() - started;
  paying = false;
  await payments;
  const paid = deposits;
  const paidIds = new Set<string>();
  for (const d of deposits) if ((await stack.transfersTo(d.depositAddress)).length > 0) paidIds.add(d.id);

  // One worker, left alone: everything paid completes and is swept; nothing is stuck.
  stack.roles.worker.start();
  const recovered = Date.now();
  await stack.until(
    "every paid deposit completed and swept",
    async () => {
      const s = await stack.statuses([...paidIds]);
      if (![...paidIds].every((id) => s.get(id) === "completed")) return undefined;
      const [open] = await queryRows<{ confirmed: number; open: number }>(
        stack.db,
        sql`select count(*) filter (where status = 'confirmed')::int as confirmed, count(*) filter (where status in ('requested', 'broadcast'))::int as open
            from transfers_out where kind = 'sweep'`,
      );
      return open!.confirmed >= paidIds.size && open!.open === 0 ? true : undefined;
    },
    // Jobs the kills used up (failed attempts) come back with the 30 s recheck (a new sweep
    // prompt once a minute): allow a few rounds on a slow machine.
    180_000,
  ).catch(async (error: Error) => {
    throw new Error(`${await stuck([...paidIds])}\n${error.message}`);
  });
  const settled = Date.now() - recovered;

  const doubles: string[] = [];
  for (const d of paid) {
    const out = await stack.transfersFrom(d.depositAddress);
    const rows = await queryRows<{ status: string; tx_hash: string }>(stack.db, sql`select status, tx_hash from transfers_out where payment_id = ${d.id} and kind = 'sweep'`);
    const confirmed = rows.filter((r) => r.status === "confirmed");
    const expected = paidIds.has(d.id) ? 1 : 0;
    if (out.length !== expected || confirmed.length !== expected) doubles.push(`${d.id}: ${out.length} on chain, rows ${JSON.stringify(rows)}`);
    // What was sent on chain is what the rows record, to the merchant.
    expect(out.map((l) => l.transactionHash as string).sort()).toEqual(confirmed.map((r) => r.tx_hash).sort());
    for (const l of out) expect([l.args.to, l.args.value]).toEqual([merchantWallet, UNITS]);
  }
  expect(doubles).toEqual([]);
  expect(paidIds.size).toBeGreaterThan(DEPOSITS / 2);
  console.log(
    `worker fault: ${WORKER_KILLS} SIGKILLs over ${Math.round(killing / 1000)} s, ${paidIds.size} deposits paid meanwhile; ` +
      `all completed and swept once ${Math.round(settled / 1000)} s after the last restart`,
  );
}, 420_000);
