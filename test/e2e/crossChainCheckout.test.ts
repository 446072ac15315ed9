import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createLogger } from "../../config/logger.ts";
import { replaceReturnOrigins } from "../../db/returnOrigins.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { startLocalRelayer } from "../../rails/bridge/local/index.ts";
import { relayerKey, startBridgeChains, type BridgeChains } from "../../harness/bridgeChains.ts";
import { axeViolations, decodeQr, DESKTOP, launchBrowser, recordConsoleErrors, recordRequests, screenshotBoth, seriousOf } from "../../harness/browser.ts";
import { merchantWallet, operatorKey, startTestIndexer } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { injectTestWallet } from "./checkoutPage.helpers.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The hosted checkout page of a cross-chain payment in a real browser: the customer is
 * asked for the origin token on the origin chain (`anvil-2`), at the bridge's deposit
 * address (QR, address, "Pay with wallet" switching the wallet to the origin chain), and
 * the page follows the local bridge — on its way, then completed on the merchant's chain
 * (`anvil`) — without a reload. Screenshots go to docs/checkout/.
 */
const SCREENSHOTS = join(import.meta.dir, "../../docs/checkout");
const logger = createLogger({ level: "silent" });

let chains: BridgeChains;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let relayer: ReturnType<typeof startLocalRelayer>;
let browser: Browser;
let base: string;
let miner: ReturnType<typeof setInterval>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  chains = await startBridgeChains({ requiredConfirmations: 2 });
  api = await createTestApi({
    env: {
      NETWORKS_FILE: chains.networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      BRIDGE_ADAPTER: "local",
      BRIDGE_LOCAL_RELAYER_KEY: relayerKey,
      BRIDGE_LOCAL_FEE_BPS: "10",
      BRIDGE_LOCAL_CONFIRMATIONS: "2",
      BRIDGE_LOCAL_POLL_MS: "200",
      BRIDGE_POLL_INTERVAL_MS: "300",
    },
  });
  merchant = await api.seedMerchant("Acme Coffee");
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  await replaceReturnOrigins(api.db, merchant.id, "test", ["https://shop.example"]);
  [indexer, workers, browser] = await Promise.all([
    startTestIndexer(api.config, api.databaseUrl, chains.networksFile),
    startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl }),
    launchBrowser(),
  ]);
  relayer = startLocalRelayer({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  await relayer.ready;
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${api.app.server!.port}`;
}, 180_000);

afterAll(async () => {
  clearInterval(miner);
  await teardown([
    ...contexts.map((context) => () => context.close()),
    () => browser?.close(),
    () => relayer?.stop(),
    () => api?.deps.paymentStreams.stop(),
    () => api?.app.stop(true),
    () => workers?.close(),
    () => indexer?.stop(),
    () => api?.close(),
    () => chains?.stop(),
  ]);
});

const phaseOf = (page: Page) => page.evaluate(() => document.body.dataset.phase);
const text = (page: Page, selector: string) => page.locator(selector).innerText();

test("pay on anvil-2 with the browser wallet, settle on anvil: the page asks for the origin leg and follows the bridge without a reload", async () => {
  const created = await api.request("/api/v1/payments/cross-chain/create", {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount: "25.5", originChainId: 31338, originCurrency: "USDC", orderId: "xc-checkout-1", successUrl: "https://shop.example/thanks" },
  });
  expect(created.status).toBe(201);
  const payment = created.body.payment as { id: string; relayDepositAddress: string; amountToSend: string };
  const originUsdc = chains.origin.tokens.find((t) => t.symbol === "USDC")!.address;

  const context = await browser.newContext({ viewport: DESKTOP });
  contexts.push(context);
  const requests = recordRequests(context);
  // The wallet starts on the merchant's chain: paying must switch it to the origin chain.
  const walletCalls = await injectTestWallet(context, [chains.destination, chains.origin], { chainId: "0x7a69" });
  const page = await context.newPage();
  const errors = recordConsoleErrors(page);
  expect((await page.goto(`${base}/pay/${payment.id}`))!.status()).toBe(200);
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  // What the customer sends, and where: the origin token and amount (bridge fee included) at the deposit address.
  expect(await phaseOf(page)).toBe("waiting");
  expect(await text(page, "#amount")).toBe("25.5255");
  expect(await text(page, ".network")).toContain("USDC on Anvil 2");
  expect(await text(page, "#bridge-receives")).toBe("Acme Coffee receives 25.50 USDC on Anvil, bridged from Anvil 2.");
  expect(await text(page, "#address")).toBe(payment.relayDepositAddress);
  expect(await text(page, "#amount-due")).toBe("25.5255");
  expect(await text(page, "#status-detail")).toBe(
    "Send 25.5255 USDC on Anvil 2 to the address below, or pay with your browser wallet. A bridge delivers 25.50 USDC to Acme Coffee on Anvil.",
  );
  const uri = `ethereum:${originUsdc}@31338/transfer?address=${payment.relayDepositAddress}&uint256=${payment.amountToSend}`;
  expect(await decodeQr(page, "#qr")).toBe(uri);
  expect(await page.locator("#open-wallet").getAttribute("href")).toBe(uri);
  expect(await page.isVisible("#refund")).toBe(false);
  expect(seriousOf(await axeViolations(page))).toEqual([]);
  await screenshotBoth(page, SCREENSHOTS, "9-cross-chain-waiting");

  // The relayer acts on a deposit with 2 confirmations: until the origin chain moves on, it is seen and on its way.
  await page.click("#wallet-pay");
  await page.waitForFunction(() => document.body.dataset.phase === "bridging", undefined, { timeout: 30_000 });
  expect(await text(page, "#status-title")).toBe("Payment received: on its way to Acme Coffee");
  await screenshotBoth(page, SCREENSHOTS, "10-cross-chain-bridging");
  // Both chains move on: the deposit is bridged and the fill gains confirmations.
  miner = setInterval(() => void Promise.all([chains.origin.mine(1), chains.destination.mine(1)]).catch(() => {}), 500);
  await page.waitForFunction(() => document.body.dataset.phase === "completed", undefined, { timeout: 60_000 });
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  expect(await page.locator("#success-link").getAttribute("href")).toBe("https://shop.example/thanks");
  await screenshotBoth(page, SCREENSHOTS, "11-cross-chain-completed");

  // The wallet was switched to the origin chain and sent one transfer there.
  expect(walletCalls).toContain("wallet_switchEthereumChain");
  expect(walletCalls.filter((m) => m === "eth_sendTransaction")).toHaveLength(1);
  expect(await chains.balanceOf(chains.origin, "USDC", payment.relayDepositAddress as `0x${string}`)).toBe(0n);
  // The payment completes on the fill's confirmations; the bridge's own success can come a poll of the bridge later.
  const readStatus = () => api.request(`/api/v1/payments/cross-chain/status/${payment.id}`, { headers: { "x-public-key": merchant.publicKey } });
  let status = await readStatus();
  for (const until = Date.now() + 30_000; status.body.payment?.bridgeStatus !== "completed" && Date.now() < until; status = await readStatus()) await Bun.sleep(250);
  expect(status.body.payment).toMatchObject({ status: "completed", amountReceived: "25.5", bridgeStatus: "completed" });
  // Nothing left the service, nothing went wrong in the page.
  expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
  expect(errors).toEqual([]);
}, 150_000);
