import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { queryRows } from "../../db/client.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: the indexer SIGKILLed (its process group: the role and its Ponder child, as a
 * crashed container) and started again, INDEXER_KILLS times, while customers pay deposits
 * in two halves each. No transfer is missed or credited twice: per deposit address, the
 * indexed transfers are exactly the chain's, and what the payment received is their sum.
 */
const INDEXER_KILLS = 3;
const DEPOSITS = 8;
const HALF = 1_000_000n;

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack();
}, 180_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

test(`indexer SIGKILLed ${INDEXER_KILLS} times mid-stream: no transfer missed or credited twice`, async () => {
  const deposits: Array<{ id: string; depositAddress: Address }> = [];
  for (let i = 0; i < DEPOSITS; i++) deposits.push(await stack.createDeposit("2"));

  // Two halves per deposit, interleaved, a transfer every ~second throughout the kills.
  const payments = (async () => {
    for (const round of [0, 1]) {
      for (const d of deposits) {
        await stack.pay(d.depositAddress, HALF);
        await Bun.sleep(round === 0 ? 900 : 1_400);
      }
    }
  })();

  for (let kill = 0; kill < INDEXER_KILLS; kill++) {
    await Bun.sleep(1_500 + Math.random() * 2_500);
    await stack.roles.indexer.kill("SIGKILL");
    await Bun.sleep(500 + Math.random() * 1_500);
    stack.roles.indexer.start();
  }
  await payments;
  await stack.waitForIndexer();

  const ids = deposits.map((d) => d.id);
  await stack.until(
    "every deposit completed",
    async () => {
      const s = await stack.statuses(ids);
      return ids.every((id) => s.get(id) === "completed") ? true : undefined;
    },
    90_000,
  );
  const views = sql.identifier(stack.config.indexer.viewsSchema);
  for (const d of deposits) {
    const onChain = await stack.transfersTo(d.depositAddress);
    const indexed = await queryRows<{ tx_hash: string; log_index: number }>(
      stack.db,
      sql`select tx_hash, log_index from ${views}.token_transfer where "to" = lower(${d.depositAddress}) order by block_number, log_index`,
    );
    const [payment] = await queryRows<{ received: string }>(stack.db, sql`select amount_received::text as received from payments where id = ${d.id}`);
    expect(indexed.map((t) => `${t.tx_hash}:${t.log_index}`)).toEqual(onChain.map((l) => `${l.transactionHash}:${l.logIndex}`));
    expect(payment!.received).toBe((2n * HALF).toString());
  }
  console.log(`indexer fault: ${INDEXER_KILLS} SIGKILLs mid-stream, ${DEPOSITS * 2} transfers, each indexed once and credited once`);
}, 300_000);
