/**
 * Benchmark (not a test): `npm run bench:memory -- [checkpoints=10000,100000]`.
 * RSS of an API and a worker process (`dist/role.js api|worker`) after N payments
 * created over HTTP (64 clients), paid (their `PaymentSettled` rows written as Ponder
 * writes them, the checkpoint moved past the confirmations: `bench/lib/pipeline.ts`),
 * completed by the worker (dispatch → reconcile: created, detected, confirmed and
 * completed events) and their `payment.completed` webhooks delivered to a local receiver.
 * Payments go through in rounds of 10,000; RSS is read at each checkpoint once the round
 * is completed and delivered, and again after 10 s idle; each figure is RSS with the
 * process's anonymous memory beside it (RSS less the files it maps, mostly Bun's own code).
 * Then the floor of the stack (`bench/stackFloor.ts`: the API's libraries doing what a
 * create does, none of our code), bundled and loaded with as many creates as the first
 * checkpoint: what any API on this stack costs.
 */
import { spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "@stablepay/devchain/freePort";
import { startPipeline, VIEWS_SCHEMA } from "./lib/pipeline.ts";
import { anonymousMb, benchStack, rssMb } from "./lib/stack.ts";

/** RSS, and in brackets the anonymous part of it. */
const mem = async (pid: number) => `${(await rssMb(pid)).toFixed(0)} MB [${(await anonymousMb(pid)).toFixed(0)} anon]`;

const CHECKPOINTS = (process.argv[2] ?? "10000,100000").split(",").map(Number);
const ROUND = 10_000;

const stack = await benchStack({ env: { INDEXER_VIEWS_SCHEMA: VIEWS_SCHEMA } });
try {
  const merchant = await stack.seedMerchant();
  const pipeline = await startPipeline(stack);
  const api = await stack.startRole("api");
  await pipeline.registerWebhook(api.url, merchant, ["payment.completed"]);
  const worker = await stack.startRole("worker");
  const lines = [`at start: API ${await mem(api.pid)}, worker ${await mem(worker.pid)}`];
  console.log(lines[0]);
  let done = 0;
  const started = performance.now();
  for (const checkpoint of CHECKPOINTS) {
    while (done < checkpoint) {
      const n = Math.min(ROUND, checkpoint - done);
      const { ids, seconds } = await pipeline.create([api.url], merchant, n, 64, `m${done}`);
      const paid = await pipeline.pay(ids);
      const completing = await pipeline.completed(done + n, paid.at);
      const delivering = await pipeline.delivered(done + n);
      done += n;
      console.log(`  ${done}: created in ${seconds.toFixed(1)} s, completed ${completing.toFixed(1)} s after paid, delivered ${delivering.toFixed(1)} s later; API ${await mem(api.pid)}, worker ${await mem(worker.pid)}`);
    }
    const busy = [await mem(api.pid), await mem(worker.pid)];
    await Bun.sleep(10_000);
    const idle = [await mem(api.pid), await mem(worker.pid)];
    lines.push(
      `after ${checkpoint} payments created, paid, completed, delivered: API ${busy[0]} (${idle[0]} 10 s later), worker ${busy[1]} (${idle[1]} 10 s later)`,
    );
    console.log(lines.at(-1));
  }
  const d = pipeline.deliveries();
  lines.push(`webhooks: ${d.distinct} delivered, ${d.total - d.distinct} duplicates; ${((performance.now() - started) / 1000).toFixed(0)} s in all`);
  lines.push(await measureFloor(stack.env, CHECKPOINTS[0]!));
  console.log(`\nRSS [anonymous memory] (dist/role.js api|worker, one of each):\n  ${lines.join("\n  ")}`);
  pipeline.stop();
} finally {
  await stack.close();
}

/** RSS of the stack's floor (`bench/stackFloor.ts`, bundled) at start, after `creates` creates from 64 clients, and 10 s later. */
async function measureFloor(env: Record<string, string>, creates: number): Promise<string> {
  const outdir = mkdtempSync(join(tmpdir(), "stablepay-floor-"));
  try {
    const built = await Bun.build({ entrypoints: [resolve(import.meta.dir, "stackFloor.ts")], outdir, target: "bun", minify: { whitespace: true, syntax: true } });
    if (!built.success) throw new AggregateError(built.logs, "bundling the floor failed");
    const port = await freePort();
    const floor = spawn(["bun", built.outputs[0]!.path, String(port)], { env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
    try {
      const url = `http://127.0.0.1:${port}/create`;
      const create = (orderId: string) =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ amount: "1.5", orderId }) }).then(async (r) => {
          if (r.status !== 201) throw new Error(`floor create: ${r.status} ${await r.text()}`);
        });
      for (let i = 0; !(await create(`warm-${i}`).then(() => true, () => false)); i++) {
        if (i > 100 || floor.exitCode !== null) throw new Error("the floor process did not start");
        await Bun.sleep(100);
      }
      const atStart = await mem(floor.pid);
      let next = 0;
      await Promise.all(Array.from({ length: 64 }, async () => {
        for (let i = next++; i < creates; i = next++) await create(`floor-${i}`);
      }));
      const loaded = await mem(floor.pid);
      await Bun.sleep(10_000);
      return `floor of the stack (bench/stackFloor.ts: Elysia, drizzle on Bun SQL, BullMQ/ioredis, viem, pino; bundled): ${atStart} at start, ${loaded} after ${creates} creates (${await mem(floor.pid)} 10 s later)`;
    } finally {
      floor.kill();
      await floor.exited;
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
