import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { createLogger } from "../../config/logger.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { networkRotation } from "../../rails/providerRotations.ts";
import { startChainSubscriber } from "../../rails/solana/ingest/chainSubscriber.ts";
import { solanaConnection } from "../../rails/solana/connection.ts";
import { startDeadRpc } from "../../harness/fixtures.ts";
import { rewritingRpcProxy } from "../../harness/rewritingRpcProxy.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 44.2 on Solana: web3.js has no failover, so the rail's Connection goes through
 * the providers its rotation keeps in use. The chain is configured with three URLs: a
 * refused port, a node of another chain (a proxy in front of the real one that reports
 * another genesis hash and knows no signatures: its "nothing here" would be believed) and
 * the real one, in that order.
 */
let solana: SolanaTestChain;
let other: ReturnType<typeof rewritingRpcProxy>;
const OTHER_GENESIS = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY";
let dead: Awaited<ReturnType<typeof startDeadRpc>>;
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  solana = await startSolanaTestChain({ finalityDepth: 4 });
  other = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) =>
    call.method === "getGenesisHash" ? { ...answer, result: OTHER_GENESIS } : call.method === "getSignaturesForAddress" ? { ...answer, result: [] } : answer,
  );
  dead = await startDeadRpc();
  api = await createTestApi({
    networks: [{ ...solana.network, rpcUrl: `${dead.url},${other.url},${solana.chain.rpcUrl}` }],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await dead?.close();
  await other?.stop();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const headers = () => ({ "x-public-key": merchant.publicKey });

describe("a Solana chain with three RPC URLs", () => {
  test("the refused one errors, the other chain is out by its genesis hash, the real one is in use", async () => {
    const rotation = (await networkRotation(network()))!;
    await rotation.probeAll();
    expect(rotation.states().map((s) => [s.provider, s.inUse, s.reason])).toEqual([
      [dead.url, false, "error"],
      [other.url, false, "wrong_chain"],
      [solana.chain.rpcUrl, true, "ok"],
    ]);
    // Every call fails over to the one provider in use.
    const connection = solanaConnection(network());
    expect(await connection.getGenesisHash()).toBe(String(solana.network.chainId));
    expect(await connection.getSlot("confirmed")).toBe(solana.chain.slot("confirmed"));
  });

  test("verify-qr finds a Solana Pay transfer through the failover, and health names the dropped providers", async () => {
    const created = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount: "6", currency: "USDC", network: "solana-local" } });
    expect(created.status).toBe(201);
    const reference = created.body.payment.solanaPay.reference as string;
    const signature = await solana.pay({ to: solana.merchant.publicKey, amount: 6_000_000n, reference });
    const verified = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: created.body.payment.id } });
    expect(verified.body).toMatchObject({ success: true, verified: true, payment: { status: "confirming", amountReceived: "6", transactionHash: signature } });

    const response = await api.request("/api/v1/payments/health");
    expect(response.status).toBe(200);
    const chain = response.body.chains.find((c: { network: string }) => c.network === "solana-local");
    expect(chain.providers.map((p: { provider: string; inUse: boolean; reason: string }) => [p.provider, p.inUse, p.reason])).toEqual([
      [dead.url, false, "error"],
      [other.url, false, "wrong_chain"],
      [solana.chain.rpcUrl, true, "ok"],
    ]);
    expect(chain.providers[1].detail).toBe(`answers for chain ${OTHER_GENESIS}, not ${String(solana.network.chainId)}`);
  });

  test("a websocket gone silent is replaced on the next WS_URL item, not the same one", async () => {
    const silent = "ws://127.0.0.1:9"; // nothing listens: no slot notification ever comes
    const watch = startChainSubscriber({
      config: { ...api.config, solana: { ...api.config.solana, wsStaleMs: 300, pollIntervalMs: 600_000 } },
      db: api.db,
      logger: createLogger({ level: "silent" }),
      network: { ...network(), wsUrl: silent, wsUrls: [silent, solana.chain.wsUrl] },
      channel: INDEXED_CHANNEL,
    });
    try {
      expect(watch.websocket!.endpoint()).toBe(0);
      const until = Date.now() + 5_000;
      while (watch.websocket!.replacements() === 0 && Date.now() < until) await Bun.sleep(50);
      expect(watch.websocket!.replacements()).toBeGreaterThan(0);
      // The second endpoint after one replacement (the live devchain: it makes no slots here, so it may be replaced again, back to the first).
      expect(watch.websocket!.endpoint()).toBe(watch.websocket!.replacements() % 2);
    } finally {
      await watch.stop();
    }
  });
});
