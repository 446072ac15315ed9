import { Worker } from "node:worker_threads";
import type { Hex } from "viem";
import { sign } from "viem/accounts";

/** Signs 32-byte digests with one key (the operator's: payment intents). */
export type DigestSigner = { sign(hash: Hex): Promise<Hex>; close(): Promise<void> };

/**
 * A signer on `threads` worker threads (round robin), or on the calling thread when 0.
 * A secp256k1 signature costs ~200 µs of CPU, a quarter of a payment creation: on its
 * own threads it runs beside the request handling instead of in front of it. The
 * threads are unref'd (they never keep a process alive); a thread that dies fails
 * the signatures it held and is replaced.
 */
export function createDigestSigner(privateKey: Hex, threads: number): DigestSigner {
  if (threads <= 0) return { sign: (hash) => sign({ hash, privateKey, to: "hex" }), close: async () => {} };
  type Pending = { resolve: (s: Hex) => void; reject: (e: Error) => void };
  let nextId = 0;
  let turn = 0;
  const start = () => {
    const pending = new Map<number, Pending>();
    const worker = new Worker(new URL("./signingThread.worker.ts", import.meta.url), { workerData: { privateKey } });
    worker.unref();
    worker.on("message", ({ id, signature, error }: { id: number; signature?: Hex; error?: string }) => {
      const p = pending.get(id);
      pending.delete(id);
      if (signature) p?.resolve(signature);
      else p?.reject(new Error(`signing failed: ${error}`));
    });
    const fail = (error: Error) => {
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      fail(new Error(`signing thread exited (${code})`));
      const at = pool.indexOf(slot);
      if (at >= 0 && !closed) pool[at] = start();
    });
    const slot = { worker, pending };
    return slot;
  };
  let closed = false;
  const pool = Array.from({ length: threads }, start);
  return {
    sign(hash) {
      const slot = pool[turn++ % pool.length]!;
      const id = nextId++;
      return new Promise<Hex>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.postMessage({ id, hash });
      });
    },
    async close() {
      closed = true;
      await Promise.all(pool.map((s) => s.worker.terminate()));
    },
  };
}
