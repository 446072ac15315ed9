import { parentPort, workerData } from "node:worker_threads";
import type { Hex } from "viem";
import { signPaymentIntent, type SignPaymentIntentParameters } from "./signPaymentIntent.ts";

/** A signing thread: signs payment intents (digest and signature) with the key it was started with. */
const operatorPrivateKey = (workerData as { privateKey: Hex }).privateKey;
type Request = { id: number; parameters: Omit<SignPaymentIntentParameters, "operatorPrivateKey"> };
parentPort!.on("message", async ({ id, parameters }: Request) => {
  try {
    parentPort!.postMessage({ id, signature: await signPaymentIntent({ ...parameters, operatorPrivateKey }) });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
