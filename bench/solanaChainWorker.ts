/**
 * `bench:solana`'s local chain in a thread of its own (a Worker): a node is not in the
 * service's process, and litesvm taking a burst of transactions would otherwise hold the
 * subscriber's thread. Posts what the bench needs once the chain runs; answers
 * `subscriptions` (the node's live subscriptions) and `stop`.
 */
import { startSolanaTestChain } from "../harness/solanaChain.ts";

declare const self: Worker;

const solana = await startSolanaTestChain({ slotMs: 400, finalityDepth: 32 });
self.onmessage = async (event: MessageEvent<{ id: number; ask: "subscriptions" | "stop" }>) => {
  const { id, ask } = event.data;
  if (ask === "stop") await solana.stop();
  self.postMessage({ id, value: ask === "subscriptions" ? solana.chain.subscriptionCount() : null });
};
self.postMessage({
  ready: {
    network: solana.network,
    operatorSecretKey: solana.operatorSecretKey,
    merchant: solana.merchant.publicKey.toBase58(),
    usdc: solana.usdc.address.toBase58(),
    customerSecretKey: [...solana.customer.secretKey],
    rpcUrl: solana.chain.rpcUrl,
    wsUrl: solana.chain.wsUrl,
  },
});
