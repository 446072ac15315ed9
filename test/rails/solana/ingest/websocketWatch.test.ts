import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import pino from "pino";
import { startSolanaDevChain, type SolanaDevChain } from "@stablepay/devchain/solana";
import { startWebsocketWatch } from "../../../../rails/solana/ingest/websocketWatch.ts";
import { until } from "../../../../harness/until.ts";

/**
 * The subscriber's websocket against the local chain's pubsub server: replaced sockets end
 * their subscriptions on the node and leave nothing retrying, and removals never spin
 * (web3.js retries a failed unsubscribe in a loop that never yields: closeSocket.ts).
 */
let chain: SolanaDevChain;
beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 50, finalityDepth: 4 });
});
afterAll(async () => {
  await chain?.stop();
});

const addresses = (n: number) => Array.from({ length: n }, () => Keypair.generate().publicKey.toBase58());

/** Counts the ticks of a 50 ms timer over `ms`: a loop that never yields gives none. */
async function ticksOver(ms: number, during: () => void) {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  during();
  await Bun.sleep(ms);
  clearInterval(timer);
  return ticks;
}

test("replaced 20 times while subscribed: the node keeps only the last socket's subscriptions, and the process never stops answering", async () => {
  const watch = startWebsocketWatch({ endpoints: [{ rpcUrl: chain.rpcUrl, wsUrl: chain.wsUrl }], staleMs: 60_000, logger: pino({ level: "silent" }), onActivity: () => {}, onReconnect: () => {} });
  try {
    watch.sync(addresses(5));
    await until("6 subscriptions on the node", async () => chain.subscriptionCount() === 6);
    const ticks = await ticksOver(1_000, () => {
      for (let i = 0; i < 20; i++) void watch.replace("test");
    });
    expect(ticks).toBeGreaterThanOrEqual(10);
    await until("only the last socket's 6", async () => chain.subscriptionCount() === 6, 10_000);
    expect(watch.replacements()).toBe(20);
  } finally {
    await watch.stop();
  }
  await until("none once stopped", async () => chain.subscriptionCount() === 0, 10_000);
});

test("addresses dropped while the socket is still connecting are unsubscribed once it is open", async () => {
  const watch = startWebsocketWatch({ endpoints: [{ rpcUrl: chain.rpcUrl, wsUrl: chain.wsUrl }], staleMs: 60_000, logger: pino({ level: "silent" }), onActivity: () => {}, onReconnect: () => {} });
  try {
    const kept = addresses(1);
    const ticks = await ticksOver(500, () => {
      watch.sync([...kept, ...addresses(3)]);
      void watch.replace("test");
      watch.sync(kept); // the new socket is connecting
    });
    expect(ticks).toBeGreaterThanOrEqual(5);
    expect(watch.size()).toBe(1);
    await until("the slot and the one kept address", async () => chain.subscriptionCount() === 2, 10_000);
  } finally {
    await watch.stop();
  }
});
