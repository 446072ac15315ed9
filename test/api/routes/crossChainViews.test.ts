import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insertPayment } from "../../../db/payments.ts";
import { openQueue, QUEUES } from "../../../jobs/queues.ts";
import { ANVIL_USDC } from "../../../harness/fixtures.ts";
import { relayQuoteResponse, signRelayWebhook, type RelayQuoteBody } from "../../../harness/fakeRelay.ts";
import { OPERATOR, RELAY_API_KEY, startCrossChainApi, type CrossChainApi } from "../../../harness/crossChainApi.ts";
import { paymentRowFactory } from "../../../harness/paymentRows.ts";

/**
 * What a merchant and a checkout read of cross-chain payments (the sources, the bridge
 * status view), and Relay's signed webhooks, with Relay behind the API (a loopback server).
 */
const DEPOSIT = "0x1b3f9a0e5c7d2e4f6a8b0c1d2e3f4a5b6c7d8e9f";
const REQUEST_ID = `0x${"ab".repeat(32)}`;

let x: CrossChainApi;
let created: { id: string; relayDepositAddress: string; amountToSend: string };
beforeAll(async () => {
  x = await startCrossChainApi();
  x.fake.on("POST /quote/v2", (request) => ({ json: relayQuoteResponse({ request: request.body as RelayQuoteBody, depositAddress: DEPOSIT, requestId: REQUEST_ID }) }));
  created = (await x.create(x.body())).body.payment;
}, 60_000);
afterAll(async () => {
  await x?.close();
});

const headers = (...args: Parameters<CrossChainApi["headers"]>) => x.headers(...args);

describe("GET /payments/cross-chain/sources", () => {
  test("needs no credentials and lists each chain a customer can pay from, with its tokens and destinations", async () => {
    const response = await x.api.request("/api/v1/payments/cross-chain/sources");
    expect(response.status).toBe(200);
    const sources = response.body.sources as Array<Record<string, any>>;
    expect(sources.map((s) => s.shortName)).toEqual(["anvil", "anvil-2"]);
    expect(sources[1]).toMatchObject({ originChainId: 31338, chainId: "31338", type: "evm", isTestnet: true, destinations: ["anvil"] });
    expect(sources[1]!.tokens).toEqual([{ symbol: "USDC", name: "USD Coin", contractAddress: ANVIL_USDC, decimals: 6 }]);
    expect((await x.api.request("/api/payments/cross-chain/sources")).body).toEqual(response.body);
  });
});

describe("GET /payments/cross-chain/status/{paymentId}", () => {
  test("shows the bridge and both legs; other payments, unknown and malformed ids are 404/400; credentials required", async () => {
    const response = await x.api.request(`/api/v1/payments/cross-chain/status/${created.id}`, { headers: headers() });
    expect(response.status).toBe(200);
    expect(response.body.payment).toMatchObject({
      id: created.id,
      status: "pending",
      bridgeStatus: "awaiting_deposit",
      amount: "25.5",
      amountReceived: "0",
      network: "anvil",
      bridge: {
        adapter: "relay",
        status: "awaiting_deposit",
        progress: "waiting",
        relayDepositAddress: created.relayDepositAddress,
        amountToSend: created.amountToSend,
        origin: { chainId: 31338, currency: "USDC", depositTxHashes: [], amountDeposited: "0" },
        destination: { currency: "USDC", fillTxHashes: [], amountFilled: "0" },
        refund: { address: OPERATOR, refundTxHashes: [], amountRefunded: "0" },
      },
    });
    const direct = await insertPayment(x.api.db, paymentRowFactory(x.api.config)(x.merchant.id));
    expect((await x.api.request(`/api/v1/payments/cross-chain/status/${direct.id}`, { headers: headers() })).status).toBe(404);
    expect((await x.api.request("/api/v1/payments/cross-chain/status/00000000-0000-4000-8000-000000000000", { headers: headers() })).status).toBe(404);
    expect((await x.api.request("/api/v1/payments/cross-chain/status/nope", { headers: headers() })).status).toBe(400);
    expect((await x.api.request(`/api/v1/payments/cross-chain/status/${created.id}`, { headers: headers(x.walletless) })).status).toBe(404);
    expect((await x.api.request(`/api/v1/payments/cross-chain/status/${created.id}`)).status).toBe(401);
  });
});

describe("Relay webhooks", () => {
  const post = (raw: string, sig: Record<string, string>, path = "/api/webhooks/relay") =>
    x.api.request(path, { method: "POST", headers: { "content-type": "application/json", ...sig }, body: raw });

  test("a signed request.status.updated prompts a read of that payment's bridge; nothing else does", async () => {
    const queue = openQueue(x.api.config, QUEUES.bridge);
    const seconds = () => String(Math.floor(Date.now() / 1000));
    const event = (data: Record<string, unknown>) => JSON.stringify({ event: "request.status.updated", timestamp: Date.now(), data: { status: "depositing", ...data } });
    try {
      // Prompted now (not the creation's delayed read): the job id's bucket width is 1000.
      const prompted = async () => (await queue.getJobs(["waiting", "delayed", "active", "completed", "failed"])).filter((j) => j.data.paymentId === created.id && j.id!.includes("-1000-"));
      expect(await prompted()).toHaveLength(0);
      const byId = event({ requestId: REQUEST_ID });
      expect((await post(byId, signRelayWebhook(RELAY_API_KEY, byId, seconds()))).status).toBe(200);
      expect(await prompted()).toHaveLength(1);
      // BUG: each prompted read retried for four hours (250 tries) when Relay kept failing it, and
      // the recheck prompts one every 30 s: hundreds of retry chains for one request.
      expect((await prompted())[0]!.opts.attempts).toBeLessThanOrEqual(5);
      await queue.drain(true);
      const byAddress = event({ requestId: "0x01", depositAddress: { address: DEPOSIT } });
      expect((await post(byAddress, signRelayWebhook(RELAY_API_KEY, byAddress, seconds()), "/api/v1/webhooks/relay")).status).toBe(200);
      expect(await prompted()).toHaveLength(1);
      await queue.drain(true);

      const forged = await post(byId, signRelayWebhook("another-key", byId, seconds()));
      expect([forged.status, forged.body.error]).toEqual([401, "invalid_webhook_signature"]);
      expect((await post(byId, signRelayWebhook(RELAY_API_KEY, byId, String(Math.floor(Date.now() / 1000) - 3_600)))).status).toBe(401);
      expect((await post(byId, {})).status).toBe(401);
      expect((await post("{not json", signRelayWebhook(RELAY_API_KEY, "{not json", seconds()))).status).toBe(400);
      // Another event, or a request we do not know, verifies and is acknowledged; nothing is prompted.
      const other = JSON.stringify({ event: "request.created", data: {} });
      expect((await post(other, signRelayWebhook(RELAY_API_KEY, other, seconds()))).status).toBe(200);
      const unknown = event({ requestId: "0x02" });
      expect((await post(unknown, signRelayWebhook(RELAY_API_KEY, unknown, seconds()))).status).toBe(200);
      expect(await prompted()).toHaveLength(0);
    } finally {
      await queue.close();
    }
  });
});
describe("POST /payments/process", () => {
  test("a cross-chain payment takes no submitted transaction: 400 naming txHash and where it is verified, and nothing is recorded", async () => {
    const response = await x.api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: created.id, txHash: `0x${"cd".repeat(32)}` } });
    expect([response.status, response.body.error]).toEqual([400, "invalid_request"]);
    expect(response.body.message).toBe(
      "Invalid field 'txHash': a cross-chain payment is verified from its bridge (GET /payments/cross-chain/status/{paymentId}); there is nothing to submit",
    );
    const view = await x.api.request(`/api/v1/payments/cross-chain/status/${created.id}`, { headers: headers() });
    expect(view.body.payment).toMatchObject({ status: "pending", amountReceived: "0" });
  });
});
