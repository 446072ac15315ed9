import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { erc20Abi, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { axeViolations, DESKTOP, launchBrowser, recordConsoleErrors, recordRequests, seriousOf } from "../../harness/browser.ts";
import { inviteLink } from "../../harness/dashboard.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The merchant dashboard in a real browser (Debian's Chromium through playwright-core) against
 * the whole service on a real anvil: indexer, workers and API on a port. An owner accepts the
 * CLI's invitation and signs in, watches a payment flip to completed without a reload, and
 * approves a refund request: the customer's chosen address is paid on chain. axe-core checks
 * every page visited; screenshots go to docs/dashboard/.
 */
const SCREENSHOTS = join(import.meta.dir, "../../docs/dashboard");
const PASSWORD = "a long owner password";

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
  [indexer, workers, browser] = await Promise.all([
    startTestIndexer(api.config, api.databaseUrl, chain.networksFile),
    startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl }),
    launchBrowser(),
  ]);
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${api.app.server!.port}`;
  mkdirSync(SCREENSHOTS, { recursive: true });
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

const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`);
    await Bun.sleep(200);
  }
}

/** axe's serious and critical findings on the page as it is, and a screenshot of it. */
async function checkPage(page: Page, name: string, screenshot = true) {
  expect([name, seriousOf(await axeViolations(page))]).toEqual([name, []]);
  if (screenshot) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: "disabled" });
}

test("an owner accepts the invitation, signs in, sees a payment complete live, and approves a refund request and refunds another payment, each received on chain", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const requests = recordRequests(context);
  const page = await context.newPage();
  const errors = recordConsoleErrors(page);

  // The operator's CLI prints the link; the owner sets a password and signs in with the keyboard.
  await page.goto(base + (await inviteLink(api, merchant.id, "owner@acme.test", "owner")));
  await checkPage(page, "invite");
  await page.getByLabel("Your name").fill("Olivia Owner");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByRole("button", { name: "Set password" }).click();
  await page.waitForURL(/\/dashboard\/sign-in\?welcome=1$/);
  await checkPage(page, "sign-in");
  await page.getByLabel("E-mail").fill("owner@acme.test");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/dashboard\/payments$/);

  // A 10 USDC deposit, opened in the dashboard before it is paid.
  const created = await api.request("/api/v1/deposits/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "10", currency: "USDC", network: "anvil", orderId: "order-1001" } });
  expect(created.status).toBe(201);
  const deposit = created.body.payment as { id: string; depositAddress: Address };
  await page.reload();
  await page.getByRole("link", { name: deposit.id }).click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${deposit.id}$`));
  expect(await page.locator("#payment-status").getAttribute("data-status")).toBe("pending");

  // Paid 12 on anvil: the page flips to completed by itself (no reload), 2 USDC owed back.
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 12_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  await chain.mine(3);
  await page.locator('#payment-status[data-status="completed"]').waitFor({ timeout: 30_000 });
  // The page followed the checkout's change stream.
  expect(requests.filter((url) => url === `${base}/api/v1/payments/public/${deposit.id}/events`).length).toBeGreaterThan(0);

  // The customer asks for the excess at an address of theirs that did not pay: it waits for the merchant.
  const exchange = privateKeyToAccount(generatePrivateKey()).address;
  // Right after completion the worker is sweeping the 10 to the merchant: a request then is told to
  // try again when that has finished (409 refund_in_progress), as the customer is.
  const ask = () => api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: exchange, reason: "overpaid by mistake" } });
  let asked = await ask();
  for (const end = Date.now() + 30_000; asked.status === 409 && asked.body.error === "refund_in_progress" && Date.now() < end; asked = await ask()) await Bun.sleep(250);
  expect([asked.status, asked.body.refundRequest?.status ?? `${asked.body.error}: ${asked.body.message}`]).toEqual([202, "awaiting_approval"]);
  await page.getByRole("link", { name: "Refund requests" }).click();
  await page.waitForURL(/\/dashboard\/refund-requests$/);
  await page.getByText(exchange).waitFor();
  await checkPage(page, "refund-requests");

  // Approved from the payment's page: the same money path as the API, and the address is paid on chain.
  await page.getByRole("link", { name: deposit.id }).click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${deposit.id}$`));
  await checkPage(page, "payment");
  await page.getByRole("button", { name: "Approve and send" }).click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${deposit.id}\\?done=approved$`));
  expect(await page.getByRole("status").filter({ hasText: "Refund approved" }).count()).toBe(1);
  await until("the exchange address's balance", () => balanceOf(exchange), (b) => b === 2_000_000n);
  await page.locator("ol.timeline", { hasText: "Refund confirmed" }).waitFor({ timeout: 30_000 });
  await checkPage(page, "payment-refunded");

  // The merchant refunds another overpaid deposit from its page (password re-entered): back to the address that paid.
  const second = await api.request("/api/v1/deposits/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "10", currency: "USDC", network: "anvil", orderId: "order-1002" } });
  const secondId = second.body.payment.id as string;
  // Watched from the payments list: its row flips to completed by itself, the list following its open payments' change stream.
  await page.goto(`${base}/dashboard/payments`);
  const row = page.locator("#payments-table tr", { hasText: secondId });
  await row.locator('td[data-status="pending"]').waitFor();
  const paid = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [second.body.payment.depositAddress, 13_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash: paid });
  await chain.mine(3);
  await row.locator('td[data-status="completed"]').waitFor({ timeout: 30_000 });
  expect(requests.filter((url) => url.startsWith(`${base}/dashboard/payments/changes?ids=`) && url.includes(secondId)).length).toBeGreaterThan(0);
  await page.goto(`${base}/dashboard/payments/${secondId}`);
  await page.locator('#payment-status[data-status="completed"]').waitFor({ timeout: 30_000 });
  const before = await balanceOf(customer.address);
  await page.getByText("Refund what this payment owes the customer").click();
  await page.getByLabel("Reason").last().fill("overpaid");
  await page.getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Refund", exact: true }).click();
  await page.waitForURL(new RegExp(`/dashboard/payments/${secondId}\\?done=refunded$`));
  await until("the customer's balance", () => balanceOf(customer.address), (b) => b === before + 3_000_000n);

  await page.getByRole("link", { name: "Payments" }).click();
  await page.waitForURL(/\/dashboard\/payments$/);
  await checkPage(page, "payments");
  await page.getByRole("link", { name: "Overview" }).click();
  await page.waitForURL(/\/dashboard\/overview$/);
  // uPlot drew the volume chart (a canvas) from the page's data.
  await page.locator("#volume-chart canvas").first().waitFor();
  expect(await page.locator("p strong").filter({ hasText: "20.00 USD" }).count()).toBe(1);
  await checkPage(page, "overview");
  await page.getByRole("link", { name: "Audit log" }).click();
  expect(await page.getByRole("cell", { name: "refund_request.approved" }).count()).toBe(1);
  await checkPage(page, "audit", false);
  await page.getByRole("link", { name: "Your account" }).click();
  await page.locator("figure svg").waitFor();
  await checkPage(page, "account", false);
  for (const [link, heading] of [["Settlement wallets", "Settlement wallets"], ["API keys", "API keys"], ["Webhooks", "Webhooks"], ["Settings", "Settings"], ["Team", "Team"]] as const) {
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: link, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    await checkPage(page, heading.toLowerCase().replace(" ", "-"), false);
  }

  // Nothing left the service (no CDN), and the pages ran with no error or CSP refusal.
  expect(requests.filter((url) => !url.startsWith(base))).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 180_000);

test("a cross-site form post is refused, and the payment is unchanged", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel("E-mail").fill("owner@acme.test");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.keyboard.press("Enter");
  await page.waitForURL(/\/dashboard\/payments$/);
  // Another site (a data: page has an opaque origin) posts a form to the dashboard with the victim's cookie.
  await page.setContent(`<form method="post" action="${base}/dashboard/keys/rotate"><input name="kind" value="secret"><input name="password" value="${PASSWORD}"></form>`);
  const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/dashboard/keys/rotate")), page.evaluate(() => document.forms[0]!.submit())]);
  expect(response.status()).toBe(403);
  const still = await api.request("/api/v1/refund-requests", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
  expect(still.status).toBe(200);
  await context.close();
}, 60_000);

test("a secret rotated in the browser is shown once and the old one then answers 401; a viewer's wallet change is refused by the server; wrong passwords are throttled", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  const signIn = async (email: string, password: string) => {
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
  };
  const keys = (key: string, secret: string) => api.request("/api/v1/refund-requests", { headers: { "x-api-key": key, "x-api-secret": secret } });

  await signIn("owner@acme.test", PASSWORD);
  await page.waitForURL(/\/dashboard\/payments$/);
  await page.getByRole("link", { name: "API keys" }).click();
  await page.getByLabel("Your password (to confirm it is you)").fill(PASSWORD);
  await page.getByRole("button", { name: "Rotate" }).click();
  const secret = (await page.locator("#new-secret-value").textContent())!;
  const key = (await page.locator("#new-key-value").textContent())!;
  await checkPage(page, "keys-rotated", false);
  expect((await keys(merchant.testApiKey, merchant.testApiSecret)).status).toBe(401);
  expect((await keys(key, secret)).status).toBe(200);
  await page.reload();
  expect(await page.getByText(secret).count()).toBe(0);

  // A viewer sees the wallets but no form; a request made anyway, with the page's own CSRF token, is refused.
  const invite = await inviteLink(api, merchant.id, "viewer@acme.test", "viewer");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto(base + invite);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByRole("button", { name: "Set password" }).click();
  await page.waitForURL(/welcome=1$/);
  await signIn("viewer@acme.test", PASSWORD);
  await page.getByRole("link", { name: "Settlement wallets" }).click();
  await checkPage(page, "wallets-viewer", false);
  expect(await page.getByRole("button", { name: "Change wallet" }).count()).toBe(0);
  const status = await page.evaluate(async (password) => {
    const csrf = (document.querySelector('input[name="csrf"]') as HTMLInputElement).value;
    const body = new URLSearchParams({ csrf, network: "anvil", address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", password });
    return (await fetch("/dashboard/wallets", { method: "POST", body })).status;
  }, PASSWORD);
  expect(status).toBe(403);

  // Five wrong passwords, then even the right one is refused for a while.
  await page.getByRole("button", { name: "Sign out" }).click();
  for (let i = 0; i < 5; i++) {
    await signIn("viewer@acme.test", `wrong password ${i}`);
    await page.getByText("do not match an account").waitFor();
  }
  await signIn("viewer@acme.test", PASSWORD);
  await page.getByText("Too many failed attempts").waitFor();
  await checkPage(page, "sign-in-locked", false);
  await context.close();
}, 90_000);
