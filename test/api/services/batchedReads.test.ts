import { describe, expect, test } from "bun:test";
import { createBatchedReads } from "../../../api/services/batchedReads.ts";

type Row = { id: string; version: number };

/** A store whose reads the test finishes by hand, recording what each read asked for and when it started. */
function controlledStore() {
  const versions = new Map<string, number>();
  const reads: Array<{ ids: string[]; finish: () => void; fail: (e: Error) => void }> = [];
  let open = 0;
  let maxOpen = 0;
  const read = (ids: readonly string[]) => {
    // What the read returns is fixed when it starts, as a query's snapshot is.
    const snapshot = ids.filter((id) => versions.has(id)).map((id) => ({ id, version: versions.get(id)! }));
    open++;
    maxOpen = Math.max(maxOpen, open);
    return new Promise<Row[]>((resolve, reject) => {
      reads.push({
        ids: [...ids],
        finish: () => (open--, resolve(snapshot)),
        fail: (e) => (open--, reject(e)),
      });
    });
  };
  return { versions, reads, read, maxOpen: () => maxOpen };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("batched reads", () => {
  test("an idle reader reads a lone request at once; a missing id is null", async () => {
    const store = controlledStore();
    store.versions.set("a", 1);
    const reads = createBatchedReads(store.read);
    const a = reads.load("a");
    const b = reads.load("nope");
    await tick();
    expect(store.reads.map((r) => r.ids)).toEqual([["a", "nope"]]);
    store.reads[0]!.finish();
    expect(await a).toEqual({ id: "a", version: 1 });
    expect(await b).toBeNull();
  });

  test("at most maxInFlight reads at once; requests arriving meanwhile go together in the next read", async () => {
    const store = controlledStore();
    for (let i = 0; i < 20; i++) store.versions.set(`p${i}`, i);
    const reads = createBatchedReads(store.read, { maxInFlight: 2 });
    const first = reads.load("p0");
    await tick();
    const second = reads.load("p1");
    await tick();
    // Both slots busy: the next 18 requests wait in one batch.
    const rest = Array.from({ length: 18 }, (_, i) => reads.load(`p${i + 2}`));
    await tick();
    expect(store.reads).toHaveLength(2);
    store.reads[0]!.finish();
    await tick();
    expect(store.reads).toHaveLength(3);
    expect(store.reads[2]!.ids).toEqual(Array.from({ length: 18 }, (_, i) => `p${i + 2}`));
    store.reads[1]!.finish();
    store.reads[2]!.finish();
    expect((await first)!.version).toBe(0);
    expect((await second)!.version).toBe(1);
    expect((await Promise.all(rest)).map((r) => r!.version)).toEqual(Array.from({ length: 18 }, (_, i) => i + 2));
    expect(store.maxOpen()).toBe(2);
  });

  test("an answer is never older than its request: a request that arrives during a read waits for the next one", async () => {
    const store = controlledStore();
    store.versions.set("a", 1);
    const reads = createBatchedReads(store.read, { maxInFlight: 1 });
    const before = reads.load("a");
    await tick();
    // The row changes after the first read started, then a new request for it arrives.
    store.versions.set("a", 2);
    const after = reads.load("a");
    await tick();
    store.reads[0]!.finish();
    expect((await before)!.version).toBe(1);
    await tick();
    store.reads[1]!.finish();
    expect((await after)!.version).toBe(2);
  });

  test("a failed read fails the requests it carried; the next read goes ahead and the slot is not lost", async () => {
    const store = controlledStore();
    store.versions.set("a", 1);
    const reads = createBatchedReads(store.read, { maxInFlight: 1 });
    const doomed = reads.load("a");
    await tick();
    const waiting = reads.load("a");
    await tick();
    store.reads[0]!.fail(new Error("connection terminated"));
    await expect(doomed).rejects.toThrow("connection terminated");
    await tick();
    store.reads[1]!.finish();
    expect((await waiting)!.version).toBe(1);
    // Slots all free again: a later request is read at once.
    const later = reads.load("a");
    await tick();
    expect(store.reads).toHaveLength(3);
    store.reads[2]!.finish();
    expect((await later)!.version).toBe(1);
  });

  test("a batch holds at most maxBatch ids; the rest go in the next read", async () => {
    const store = controlledStore();
    const reads = createBatchedReads(store.read, { maxInFlight: 4, maxBatch: 3 });
    const all = Array.from({ length: 7 }, (_, i) => reads.load(`x${i}`));
    await tick();
    expect(store.reads.map((r) => r.ids.length)).toEqual([3, 3, 1]);
    for (const r of store.reads) r.finish();
    expect(await Promise.all(all)).toEqual(Array(7).fill(null));
  });
});
