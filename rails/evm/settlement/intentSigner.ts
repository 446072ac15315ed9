import { Worker } from "node:worker_threads";
import type { Hex } from "viem";
import { signPaymentIntent, type SignPaymentIntentParameters } from "./signPaymentIntent.ts";

export type IntentParameters = Omit<SignPaymentIntentParameters, "operatorPrivateKey">;

// The thread's own entry: beside this file in the sources, or the bundle's
// `dist/signingThread.worker.js` when this code runs from the bundle (`scripts/build.ts`
// builds it as a second entry point, next to every chunk).
const SIGNING_THREAD_ENTRY = new URL(import.meta.url.endsWith(".ts") ? "./signingThread.worker.ts" : "./signingThread.worker.js", import.meta.url);

/** Signs payment intents with one key (the operator's). */
export type IntentSigner = { sign(parameters: IntentParameters): Promise<Hex>; close(): Promise<void> };

/**
 * `signPaymentIntent` on `threads` worker threads (round robin), or on the calling thread
 * when 0. An intent's digest and secp256k1 signature cost ~250 µs of CPU, a quarter of a
 * payment creation: on their own threads they run beside the request handling instead
 * of in front of it. The threads are unref'd (they never keep a process alive); one that
 * dies fails the signatures it held and is replaced.
 */
export function createIntentSigner(privateKey: Hex, threads: number): IntentSigner {
  if (threads <= 0) return { sign: (parameters) => signPaymentIntent({ ...parameters, operatorPrivateKey: privateKey }), close: async () => {} };
  type Pending = { resolve: (s: Hex) => void; reject: (e: Error) => void };
  let nextId = 0;
  let turn = 0;
  let closed = false;
  const start = () => {
    const pending = new Map<number, Pending>();
    const worker = new Worker(SIGNING_THREAD_ENTRY, { workerData: { privateKey } });
    worker.unref();
    const slot = { worker, pending };
    const fail = (error: Error) => {
      for (const p of pending.values()) p.reject(error);
      pending.clear();
    };
    worker.on("message", ({ id, signature, error }: { id: number; signature?: Hex; error?: string }) => {
      const p = pending.get(id);
      pending.delete(id);
      if (signature) p?.resolve(signature);
      else p?.reject(new Error(`signing failed: ${error}`));
    });
    worker.on("error", fail);
    worker.on("exit", (code) => {
      fail(new Error(`signing thread exited (${code})`));
      const at = pool.indexOf(slot);
      if (at >= 0 && !closed) pool[at] = start();
    });
    return slot;
  };
  const pool = Array.from({ length: threads }, start);
  return {
    sign(parameters) {
      if (closed) return Promise.reject(new Error("intent signer closed"));
      const slot = pool[turn++ % pool.length]!;
      const id = nextId++;
      return new Promise<Hex>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker.postMessage({ id, parameters });
      });
    },
    async close() {
      closed = true;
      await Promise.all(pool.map((s) => s.worker.terminate()));
    },
  };
}
