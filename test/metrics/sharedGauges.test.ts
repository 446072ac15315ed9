import { afterAll, beforeAll, expect, test } from "bun:test";
import { transfersOut } from "../../db/schema/index.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { roleStack } from "../../harness/roleStack.ts";
import { waitUntil } from "../../harness/webhookReceiver.ts";

/**
 * Two worker processes on one Postgres and Redis, each serving `/metrics`: the gauges of what
 * they share (queue depths, sweeps and refunds in flight) must be reported once, by one of
 * them, so that a sum over the scrapes is the true value and not twice it.
 */
const TOKEN = "shared-gauges-operator-token-0123456789";
/** A chain no network of the stack names: no worker acts on these transfers (its label is the chain id). */
const CHAIN = "424242";
let stack: Awaited<ReturnType<typeof roleStack>>;

beforeAll(async () => {
  stack = await roleStack({ roleScript: "scripts/role.ts", env: { OPERATOR_TOKEN: TOKEN, METRICS_LEASE_SECONDS: "3", LOG_LEVEL: "warn" } });
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

/** The samples of a metrics page: name, labels (without `role`) and value. */
function samples(page: string): Array<{ name: string; labels: string; value: number }> {
  return page
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = (match[2] ?? "").split(",").filter((l) => l && !l.startsWith("role=")).join(",");
      return { name: match[1]!, labels, value: Number(match[3]) };
    });
}

const SHARED = ["stablepay_queue_jobs", "stablepay_transfers_out_in_flight", "stablepay_transfers_out_stuck", "stablepay_transfers_out_oldest_seconds"];

// BUG: every worker reported the queues' depths and the transfers in flight, which all workers
// share: a dashboard's sum over N workers showed N times the queue, and `sum by` alerts fired on N.
test("two workers: each shared gauge comes from one of them with the true value; when that one dies the other takes over", async () => {
  const ports = [await freePort(), await freePort()];
  const workers = [];
  for (const port of ports) workers.push(await stack.startRole("worker", { WORKER_METRICS_PORT: String(port) }));
  const scrape = async (port: number) => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    return samples(await response.text());
  };
  const exporter = (page: ReturnType<typeof samples>) => page.find((s) => s.name === "stablepay_shared_gauges_exporter")?.value;

  // Shared state: three bridge reads waiting an hour in their queue (no worker adds any there on its own),
  // two sweeps out on a chain no worker serves.
  const queue = openQueue(stack.config, QUEUES.bridge);
  try {
    for (let i = 0; i < 3; i++) await queue.add("bridge", { paymentId: crypto.randomUUID() }, { delay: 3_600_000 });
    const merchant = await stack.seedMerchant();
    const payments = ["0x5555555555555555555555555555555555555555", "0x6666666666666666666666666666666666666666"].map((receiveAddress) =>
      paymentRowFactory(stack.config)(merchant.id, { receiveAddress }),
    );
    await insertPaymentRows(stack.db, payments);
    const row = { chainId: CHAIN, kind: "sweep" as const, status: "broadcast" as const, tokenAddress: "0x5fbdb2315678afecb367f032d93f642f64180aa3", toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: 1n };
    await stack.db.insert(transfersOut).values(payments.map((p) => ({ ...row, paymentId: p.id! })));

    // One holds the lease: its exporter reads 1, the other's 0.
    const pages = await waitUntil("one exporter of the shared gauges", async () => {
      const read = await Promise.all(ports.map(scrape));
      return read.map(exporter).sort().join() === "0,1" ? read : undefined;
    }, 20_000);
    const holder = pages.findIndex((p) => exporter(p) === 1);
    const value = (page: ReturnType<typeof samples>, name: string, labels: string) => page.find((s) => s.name === name && s.labels === labels)?.value;
    expect(value(pages[holder]!, "stablepay_queue_jobs", 'queue="bridge",state="delayed"')).toBe(3);
    expect(value(pages[holder]!, "stablepay_transfers_out_in_flight", `network="${CHAIN}",kind="sweep"`)).toBe(2);
    // Every series of a shared gauge is in exactly one page: a sum over the workers is the one value.
    const shared = pages.map((p) => p.filter((s) => SHARED.includes(s.name)));
    expect(shared[1 - holder]).toEqual([]);
    expect(shared[holder]!.length).toBeGreaterThan(0);
    // Each worker's own series (its process) stay on every page.
    for (const page of pages) expect(page.some((s) => s.name === "process_cpu_seconds_total")).toBe(true);

    // The holder dies without a word (SIGKILL): once its lease runs out (3 s), the other reports the same values.
    workers[holder]!.child.kill("SIGKILL");
    await workers[holder]!.child.exited;
    const survivor = ports[1 - holder]!;
    const taken = await waitUntil("the other worker takes over", async () => {
      const page = await scrape(survivor);
      return exporter(page) === 1 ? page : undefined;
    }, 20_000);
    expect(value(taken, "stablepay_queue_jobs", 'queue="bridge",state="delayed"')).toBe(3);
    expect(value(taken, "stablepay_transfers_out_in_flight", `network="${CHAIN}",kind="sweep"`)).toBe(2);
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
  }
}, 90_000);
