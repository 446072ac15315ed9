import { parentPort, workerData } from "node:worker_threads";
import { sign } from "viem/accounts";
import type { Hex } from "viem";

/** A signing thread: signs digests with the key it was started with, one message per digest. */
const privateKey = (workerData as { privateKey: Hex }).privateKey;
parentPort!.on("message", async ({ id, hash }: { id: number; hash: Hex }) => {
  try {
    parentPort!.postMessage({ id, signature: await sign({ hash, privateKey, to: "hex" }) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
