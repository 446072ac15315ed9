import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../config/logger.ts";
import { replaceReturnOrigins } from "../../db/returnOrigins.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { startWorkers } from "../../jobs/worker.ts";
import { axeViolations, decodeQr, DESKTOP, launchBrowser, PHONE, recordConsoleErrors, recordRequests, screenshotBoth, seriousOf } from "../../harness/browser.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { expirePayment, injectTestWallet } from "./checkoutPage.helpers.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The hosted checkout page in a real browser (Debian's Chromium through
 * playwright-core) against the whole service on a real anvil: the real indexer,
 * workers and API served on a port. Payments are made on chain, and the page must
 * follow them without a reload. Screenshots of each state go to docs/checkout/.
 */
const SCREENSHOTS = join(import.meta.dir, "../../docs/checkout");
const refundAddress = privateKeyToAccount(anvilAccounts[5] as Hex).address;

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let browser: Browser;
let base: string;
let usdc: Address;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant("Acme Coffee");
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  await replaceReturnOrigins(api.db, merchant.id, "test", ["https://shop.example"]);
  [indexer, workers, browser] = await Promise.all([
    startTestIndexer(api.config, api.databaseUrl, chain.networksFile),
    startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl }),
    launchBrowser(),
  ]);
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${api.app.server!.port}`;
}, 120_000);

afterAll(async () => {
  await teardown([
    () => browser?.close(),
    () => api?.deps.paymentStreams.stop(),
    () => api?.app.stop(true),
    () => workers?.close(),
    () => indexer?.stop(),
    () => api?.close(),
    () => chain?.stop(),
  ]);
});

let orders = 0;
async function create(path: "/api/v1/payments/create" | "/api/v1/deposits/create", amount: string, extra: Record<string, unknown> = {}) {
  const response = await api.request(path, {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount, currency: "USDC", network: "anvil", orderId: `checkout-${++orders}`, ...extra },
  });
  expect(response.status).toBe(201);
  const payment = response.body.payment;
  return { id: payment.id as string, address: (payment.receiveAddress ?? payment.depositAddress) as Address, paymentUri: payment.paymentUri as string };
}

async function send(to: Address, units: bigint) {
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

const contexts: BrowserContext[] = [];
async function open(id: string, options: { locale?: string; path?: string; wallet?: Parameters<typeof injectTestWallet>[2] } = {}) {
  const context = await browser.newContext({ viewport: DESKTOP, extraHTTPHeaders: options.locale ? { "accept-language": options.locale } : {} });
  contexts.push(context);
  const requests = recordRequests(context);
  const walletCalls = options.wallet ? await injectTestWallet(context, chain, options.wallet) : [];
  const page = await context.newPage();
  const errors = recordConsoleErrors(page);
  const response = await page.goto(`${base}${options.path ?? `/pay/${id}`}`);
  // A marker that a reload would wipe: the page must change by itself.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  return { page, response: response!, requests, errors, walletCalls };
}

const phaseOf = (page: Page) => page.evaluate(() => document.body.dataset.phase);
const waitForPhase = (page: Page, phase: string, timeout = 20_000) => page.waitForFunction((p) => document.body.dataset.phase === p, phase, { timeout });
const notReloaded = (page: Page) => page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded === true);
const text = (page: Page, selector: string) => page.locator(selector).innerText();

/**
 * Waits until the API's public view reaches `phase` (polled every 10 ms), then gives the
 * open page 2 s to show it by itself. The page's polling fallback (every 4 s) is too
 * slow for that: only the event stream passes.
 */
async function followsApiWithin2s(page: Page, id: string, phase: "partial" | "confirming" | "completed") {
  const reached = (p: { status: string; amountReceived: string }) =>
    phase === "partial" ? p.status === "pending" && p.amountReceived !== "0" : p.status === phase;
  const until = Date.now() + 20_000;
  while (!reached((await api.request(`/api/v1/payments/public/${id}`)).body.payment)) {
    if (Date.now() > until) throw new Error(`payment ${id} never reached ${phase} in the API`);
    await Bun.sleep(10);
  }
  await waitForPhase(page, phase, 2_000);
}

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
});

describe("the hosted checkout page", () => {
  test("renders a waiting payment from the service alone: QR of the payment URI, copy, countdown, strict CSP, accessible", async () => {
    const payment = await create("/api/v1/payments/create", "25.50", { cancelUrl: "https://shop.example/cart" });
    const { page, response, requests, errors } = await open(payment.id, { wallet: {} });
    expect(response.status()).toBe(200);
    const csp = response.headers()["content-security-policy"]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(await page.getAttribute("html", "lang")).toBe("en");
    expect(await text(page, "h1")).toBe("Pay Acme Coffee");
    expect(await text(page, "#amount")).toBe("25.50");
    expect(await text(page, "#status-title")).toBe("Waiting for your payment");
    expect(await text(page, "#address")).toBe(payment.address);
    expect(await text(page, "#countdown-time")).toMatch(/^(29|30):\d\d$/);
    expect(await page.locator("#cancel-link").getAttribute("href")).toBe("https://shop.example/cart");
    // The network's logo is served by the service and shown.
    expect(await page.evaluate(() => (document.querySelector(".network img") as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);

    expect(await decodeQr(page, "#qr")).toBe(payment.paymentUri);
    // On a phone, the same URI opens the wallet app; with a browser wallet, the button pays.
    expect(await page.locator("#open-wallet").getAttribute("href")).toBe(payment.paymentUri);
    expect(await page.isVisible("#wallet-pay")).toBe(true);
    expect(seriousOf(await axeViolations(page))).toEqual([]);
    await screenshotBoth(page, SCREENSHOTS, "1-waiting");

    // Keyboard: the copy button is reachable with Tab and works with Enter.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
    for (let i = 0; i < 12 && (await page.evaluate(() => document.activeElement?.getAttribute("data-copy"))) !== "address"; i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.getElementById("copy-message")?.textContent === "Copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(payment.address);
    // Everything came from the service itself, and nothing was refused by the policy.
    expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  test("a partial payment shows what is left; the rest flips it to confirming, then completed within 2 s of the API", async () => {
    const payment = await create("/api/v1/deposits/create", "10", { successUrl: "https://shop.example/thanks" });
    const { page, errors } = await open(payment.id);
    await send(payment.address, 4_000_000n);
    await followsApiWithin2s(page, payment.id, "partial");
    expect(await text(page, "#status-title")).toBe("Part of the payment has arrived");
    expect(await text(page, "#status-detail")).toBe("Received 4.00 USDC. Send the remaining 6.00 USDC to finish.");
    expect(await text(page, "#amount-due")).toBe("6.00");
    expect(await decodeQr(page, "#qr")).toBe(payment.paymentUri.replace("uint256=10000000", "uint256=6000000"));
    // No browser wallet here: the page says how else to pay.
    expect(await page.isVisible("#wallet-none")).toBe(true);
    expect(await page.isVisible("#wallet-pay")).toBe(false);
    await screenshotBoth(page, SCREENSHOTS, "2-partial");

    await send(payment.address, 6_000_000n);
    await followsApiWithin2s(page, payment.id, "confirming");
    expect(await text(page, "#status-detail")).toBe("1 of 2 network confirmations.");
    await screenshotBoth(page, SCREENSHOTS, "3-confirming");

    await chain.mine(1);
    await followsApiWithin2s(page, payment.id, "completed");
    expect(await notReloaded(page)).toBe(true);
    expect(await text(page, "#status-detail")).toBe("Acme Coffee has received 10.00 USDC. Thank you!");
    expect(await page.locator("#success-link").getAttribute("href")).toBe("https://shop.example/thanks");
    expect(await page.isVisible("#pay")).toBe(false);
    expect(seriousOf(await axeViolations(page))).toEqual([]);
    await screenshotBoth(page, SCREENSHOTS, "4-completed");
    expect(errors).toEqual([]);
  }, 60_000);

  test("overpaid: says what is owed back, and the refund form gets it sent", async () => {
    const payment = await create("/api/v1/deposits/create", "5");
    // The customer's wallet (the one that pays) signs the request for another address of theirs.
    const { page, walletCalls } = await open(payment.id, { wallet: {} });
    await send(payment.address, 7_000_000n);
    await chain.mine(1);
    await waitForPhase(page, "overpaid");
    expect(await text(page, "#status-detail")).toBe("Acme Coffee has received 5.00 USDC. You sent 2.00 USDC too much: give an address below to get it back.");
    expect(seriousOf(await axeViolations(page))).toEqual([]);
    await screenshotBoth(page, SCREENSHOTS, "5-overpaid");

    // A wrong address is refused in words, on the field.
    await page.fill("#refund-address", "not an address");
    await page.click("#refund-form button[type=submit]");
    await page.waitForFunction(() => document.getElementById("refund-message")?.textContent === "That is not a valid Anvil address.");
    expect(await page.getAttribute("#refund-address", "aria-invalid")).toBe("true");

    await page.fill("#refund-address", refundAddress);
    await page.click("#refund-form button[type=submit]");
    // Not the address that paid: recorded, waiting for the merchant, unless the paying wallet signs.
    await page.waitForFunction(
      (a) => document.getElementById("refund-message")?.textContent === `Request recorded: 2.00 USDC will be sent to ${a} once Acme Coffee approves it. To get it now, sign the request with the wallet you paid from.`,
      refundAddress,
    );
    expect(await page.isVisible("#refund-sign")).toBe(true);
    await page.click("#refund-sign");
    await page.waitForFunction((a) => document.getElementById("refund-message")?.textContent === `Refund requested: 2.00 USDC will be sent to ${a} shortly.`, refundAddress);
    expect(walletCalls).toContain("personal_sign");
    expect(await page.isVisible("#refund-sign")).toBe(false);
    // The worker sends it; the page hears of it by itself.
    await page.waitForFunction(() => document.getElementById("refund-list")?.textContent === "Refund of 2.00 USDC: sent.", undefined, { timeout: 30_000 });
    expect(await page.isVisible("#refund")).toBe(false);
    const balance = await chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [refundAddress] });
    expect(balance).toBeGreaterThanOrEqual(2_000_000n);
  }, 60_000);

  test("a stranger's refund request waits for the merchant; the customer's \"send it back\" reaches the address that paid", async () => {
    const payment = await create("/api/v1/deposits/create", "5");
    await send(payment.address, 7_000_000n);
    await chain.mine(1);
    // A stranger holding the link asks for the excess, with no wallet that paid: recorded, nothing sent.
    const strangerAddress = privateKeyToAccount(anvilAccounts[7] as Hex).address;
    const { page } = await open(payment.id);
    await waitForPhase(page, "overpaid");
    expect(await text(page, "#refund-explain")).toBe(
      "It goes back to the address you paid from. Paid from an exchange, or from someone else's wallet? Enter an address of your own below instead: it is sent there once Acme Coffee approves, or at once if you sign the request with the wallet you paid from.",
    );
    await page.fill("#refund-address", strangerAddress);
    await page.click("#refund-form button[type=submit]");
    await page.waitForFunction(
      (a) => document.getElementById("refund-message")?.textContent === `Request recorded: 2.00 USDC will be sent to ${a} once Acme Coffee approves it.`,
      strangerAddress,
    );
    expect(await page.isVisible("#refund-sign")).toBe(false); // no wallet here to sign with
    expect(seriousOf(await axeViolations(page))).toEqual([]);

    // The customer's own button: back to the address that paid, at once.
    const balance = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
    const [customerBefore, strangerBefore] = [await balance(customer.address), await balance(strangerAddress)];
    await page.click("#refund-to-payer");
    await page.waitForFunction((a) => document.getElementById("refund-message")?.textContent === `Refund requested: 2.00 USDC will be sent to ${a} shortly.`, customer.address);
    await page.waitForFunction(() => document.getElementById("refund-list")?.textContent === "Refund of 2.00 USDC: sent.", undefined, { timeout: 30_000 });
    expect(await balance(customer.address)).toBe(customerBefore + 2_000_000n);
    expect(await balance(strangerAddress)).toBe(strangerBefore);
  }, 60_000);

  test("expired: with money received, the page says it is owed back and offers the refund form", async () => {
    const payment = await create("/api/v1/deposits/create", "10");
    const { page } = await open(payment.id);
    await send(payment.address, 3_000_000n);
    await waitForPhase(page, "partial");
    await expirePayment(api, payment.id);
    await waitForPhase(page, "expired", 5_000);
    expect(await text(page, "#status-title")).toBe("This payment has expired");
    expect(await text(page, "#status-detail")).toBe("The full amount did not arrive in time. 3.00 USDC is owed back to you: give an address below to get it back.");
    expect(await page.isVisible("#refund-form")).toBe(true);
    expect(await page.isVisible("#pay")).toBe(false);
    expect(seriousOf(await axeViolations(page))).toEqual([]);
    await screenshotBoth(page, SCREENSHOTS, "6-expired");

    // Nothing received: nothing to refund, start again at the shop.
    const empty = await create("/api/v1/payments/create", "1", { cancelUrl: "https://shop.example/cart" });
    await expirePayment(api, empty.id);
    const { page: second } = await open(empty.id);
    expect(await phaseOf(second)).toBe("expired");
    expect(await text(second, "#status-detail")).toBe("Nothing arrived in time. To pay, start again at Acme Coffee.");
    expect(await second.isVisible("#refund")).toBe(false);
    expect(await text(second, "#cancel-link")).toBe("Return to Acme Coffee");
  }, 60_000);

  test("without the event stream (refused here), the page falls back to polling and still follows the payment", async () => {
    const payment = await create("/api/v1/payments/create", "2");
    const context = await browser.newContext({ viewport: PHONE });
    contexts.push(context);
    let refused = 0;
    await context.route("**/events", (route) => (refused++, route.fulfill({ status: 503, contentType: "application/json", body: '{"success":false}' })));
    const page = await context.newPage();
    await page.goto(`${base}/pay/${payment.id}`);
    expect(await phaseOf(page)).toBe("waiting");
    await expirePayment(api, payment.id);
    await waitForPhase(page, "expired", 10_000);
    expect(refused).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("network delayed: the notice comes and goes with the view's networkDelayed, without a reload", async () => {
    const payment = await create("/api/v1/payments/create", "3");
    const context = await browser.newContext({ viewport: DESKTOP });
    contexts.push(context);
    // The page polls (stream refused); each poll is the service's own view, its chain said delayed while `delayed`
    // (the service's side of it, a node down or lagging, is test/api/routes/networkDelayed.test.ts).
    let delayed = true;
    await context.route("**/events", (route) => route.fulfill({ status: 503, contentType: "application/json", body: '{"success":false}' }));
    await context.route(`**/api/v1/payments/public/${payment.id}`, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      await route.fulfill({ response, json: { ...body, payment: { ...body.payment, networkDelayed: delayed } } });
    });
    const page = await context.newPage();
    await page.goto(`${base}/pay/${payment.id}`);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await page.locator("#network-delayed").waitFor({ state: "visible", timeout: 10_000 });
    expect(await text(page, "#network-delayed")).toContain("Network delayed");
    expect(await text(page, "#network-delayed")).toContain("Anvil");
    expect(await phaseOf(page)).toBe("waiting");
    expect(seriousOf(await axeViolations(page))).toEqual([]);
    delayed = false;
    await page.locator("#network-delayed").waitFor({ state: "hidden", timeout: 10_000 });
    expect(await notReloaded(page)).toBe(true);
  }, 60_000);

  test("Pay with wallet: an injected EIP-1193 wallet (the sandbox customer's key) switches chain, approves and pays", async () => {
    const payment = await create("/api/v1/payments/create", "12.34");
    const { page, walletCalls } = await open(payment.id, { wallet: { chainId: "0x1" } });
    // Every message the wallet line shows: "Sent." is cleared at once when the service has
    // already seen the payment (the view moved on), too soon for a poll to see it (a CI flake).
    await page.evaluate(() => {
      const line = document.getElementById("wallet-message")!;
      const seen: string[] = ((window as unknown as { __walletMessages: string[] }).__walletMessages = []);
      // From the records, not the line as the callback finds it: "Sent." and its clearing can
      // land in one task, and the callback (run once after both) would read only "".
      new MutationObserver((records) => {
        for (const record of records) for (const node of Array.from(record.addedNodes)) seen.push(node.textContent ?? "");
        seen.push(line.textContent ?? "");
      }).observe(line, { childList: true, characterData: true, subtree: true });
    });
    await page.click("#wallet-pay");
    await page.waitForFunction(() => (window as unknown as { __walletMessages: string[] }).__walletMessages.some((m) => m.startsWith("Sent.")), undefined, { timeout: 30_000 });
    expect(walletCalls).toContain("wallet_switchEthereumChain");
    expect(walletCalls.filter((m) => m === "eth_sendTransaction")).toHaveLength(2);
    // Confirming until the next block (another test's sweep may already have mined it).
    await page.waitForFunction(() => ["confirming", "completed"].includes(document.body.dataset.phase ?? ""), undefined, { timeout: 20_000 });
    await chain.mine(1);
    await waitForPhase(page, "completed");
    expect(await text(page, "#status-detail")).toBe("Acme Coffee has received 12.34 USDC. Thank you!");
    expect(await notReloaded(page)).toBe(true);
  }, 60_000);

  test("wallet problems are said in words: declined, and not enough of the token", async () => {
    const declined = await create("/api/v1/payments/create", "3");
    const { page } = await open(declined.id, { wallet: { reject: true } });
    await page.click("#wallet-pay");
    await page.waitForFunction(() => document.getElementById("wallet-error")?.textContent === "You declined the request in your wallet. Nothing was sent.");

    const tooMuch = await create("/api/v1/payments/create", "5000000");
    const { page: second, walletCalls } = await open(tooMuch.id, { wallet: { chainId: "0x7a69" } });
    await second.click("#wallet-pay");
    await second.waitForFunction(() => document.getElementById("wallet-error")?.textContent?.startsWith("Not enough USDC: your wallet holds "));
    expect(await text(second, "#wallet-error")).toMatch(/and this payment needs 5,000,000\.00 USDC\.$/);
    expect(walletCalls).not.toContain("eth_sendTransaction");
  }, 60_000);

  test("speaks Spanish and French, chosen by Accept-Language or ?lang=", async () => {
    const payment = await create("/api/v1/payments/create", "7.5");
    const { page } = await open(payment.id, { locale: "es-MX,es;q=0.9,en;q=0.5" });
    expect(await page.getAttribute("html", "lang")).toBe("es");
    expect(await text(page, "h1")).toBe("Pagar a Acme Coffee");
    expect(await text(page, "#status-title")).toBe("Esperando tu pago");
    expect(await text(page, "#amount")).toBe("7,50");
    expect(seriousOf(await axeViolations(page))).toEqual([]);

    const { page: french } = await open(payment.id, { locale: "es", path: `/pay/${payment.id}?lang=fr` });
    expect(await french.getAttribute("html", "lang")).toBe("fr");
    expect(await text(french, "#status-title")).toBe("En attente de votre paiement");
    await french.setViewportSize(PHONE);
    expect(seriousOf(await axeViolations(french))).toEqual([]);
  }, 60_000);
});
