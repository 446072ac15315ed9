import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { en } from "../../api/checkout/messages/en.ts";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startChainSubscriber, type ChainSubscriber } from "../../rails/solana/ingest/chainSubscriber.ts";
import { axeViolations, decodeQr, DESKTOP, launchBrowser, recordConsoleErrors, recordRequests, screenshotBoth, seriousOf } from "../../harness/browser.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The hosted checkout page for a Solana Pay payment, in a real browser against the whole
 * service on the local Solana chain (the subscriber, the workers, the API on a port): the
 * QR holds the Solana Pay URI (with its reference), a partial transfer asks for the rest
 * with a QR of the remaining amount under the same reference, and the page follows the
 * payment to completed — at `finalized` — without a reload.
 */
const SCREENSHOTS = join(import.meta.dir, "../../docs/checkout");
const logger = createLogger({ level: "silent" });
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ChainSubscriber;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let browser: Browser;
let base: string;

beforeAll(async () => {
  solana = await startSolanaTestChain({ finalityDepth: 4 });
  api = await createTestApi({ networks: [solana.network], env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "500", SOLANA_HEAD_INTERVAL_MS: "50" } });
  merchant = await api.seedMerchant("Acme Coffee");
  const network = api.config.networks.find((n) => n.shortName === "solana-local")!;
  await setSettlementWallet(api.db, merchant.id, network.id, solana.merchant.publicKey.toBase58());
  subscriber = startChainSubscriber({ config: api.config, db: api.db, logger, network, channel: INDEXED_CHANNEL });
  [workers, browser] = await Promise.all([startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl }), launchBrowser(), subscriber.ready]);
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${api.app.server!.port}`;
}, 120_000);

afterAll(async () => {
  await teardown([
    () => browser?.close(),
    () => api?.deps.paymentStreams.stop(),
    () => api?.app.stop(true),
    () => workers?.close(),
    () => subscriber?.stop(),
    () => api?.close(),
    () => solana?.stop(),
  ]);
});

const waitForPhase = (page: Page, phase: string, timeout = 20_000) => page.waitForFunction((p) => document.body.dataset.phase === p, phase, { timeout });
const text = (page: Page, selector: string) => page.locator(selector).innerText();

test("a Solana Pay payment: QR of its URI, a partial asks for the rest, completed at finalized without a reload", async () => {
  const created = await api.request("/api/v1/payments/create", {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount: "12.5", currency: "USDC", network: "solana-local", orderId: "sol-checkout-1" },
  });
  expect(created.status).toBe(201);
  const payment = created.body.payment as { id: string; paymentUri: string; receiveAddress: string; solanaPay: { reference: string } };
  expect(payment.paymentUri.startsWith(`solana:${solana.merchant.publicKey.toBase58()}?`)).toBe(true);

  const context = await browser.newContext({ viewport: DESKTOP });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = recordConsoleErrors(page);
  expect((await page.goto(`${base}/pay/${payment.id}`))!.status()).toBe(200);
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  expect(await text(page, "h1")).toBe("Pay Acme Coffee");
  expect(await text(page, "#amount")).toBe("12.50");
  expect(await text(page, "#status-title")).toBe("Waiting for your payment");
  // The address is the merchant's own wallet: a transfer typed in by hand carries no reference and
  // would never be matched, so the page offers only the QR and the wallet link.
  expect(await page.isVisible("#manual")).toBe(false);
  expect(await text(page, "#status-detail")).toBe(en.waitingDetailUri);
  expect(await decodeQr(page, "#qr")).toBe(payment.paymentUri);
  expect(payment.paymentUri).not.toContain("sol-checkout-1"); // the merchant's order id stays private
  expect(await page.locator("#open-wallet").getAttribute("href")).toBe(payment.paymentUri);
  // No injected EVM wallet pays a Solana payment: the button stays hidden; the QR is how.
  expect(await page.isVisible("#wallet-pay")).toBe(false);
  expect(seriousOf(await axeViolations(page))).toEqual([]);
  await screenshotBoth(page, SCREENSHOTS, "7-solana-waiting");

  // Part of it, carrying the payment's reference: the page asks for the rest, under the same reference.
  await solana.pay({ to: solana.merchant.publicKey, amount: 5_000_000n, reference: payment.solanaPay.reference });
  await waitForPhase(page, "partial");
  expect(await text(page, "#status-detail")).toBe("Received 5.00 USDC. Send the remaining 7.50 USDC to finish.");
  const rest = new URL((await decodeQr(page, "#qr"))!);
  expect(rest.searchParams.get("amount")).toBe("7.5");
  expect(rest.searchParams.get("reference")).toBe(payment.solanaPay.reference);

  await solana.pay({ to: solana.merchant.publicKey, amount: 7_500_000n, reference: payment.solanaPay.reference });
  await waitForPhase(page, "confirming");
  solana.chain.finalize();
  await waitForPhase(page, "completed");
  expect(await text(page, "#status-title")).toBe("Payment complete");
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true)).toBe(true);
  await screenshotBoth(page, SCREENSHOTS, "8-solana-completed");
  expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();

  // The service holds none of a Solana Pay payment: a refund is the merchant's to make, and the API says so.
  const refund = await api.request(`/api/v1/payments/public/${payment.id}/refund-request`, { body: { address: solana.customer.publicKey.toBase58() } });
  expect(refund.status).toBe(409);
  expect(refund.body).toMatchObject({ success: false, error: "refund_not_held" });
}, 90_000);
