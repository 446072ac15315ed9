import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import jsQR from "jsqr";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { PNG } from "pngjs";

/** Debian's Chromium (`.ci/run` installs the `chromium` package when it is missing). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** One headless Chromium for a test file, with nothing running in the background that reaches the network. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Writes a full-page screenshot of `page` at desktop and phone width to `dir/<name>-desktop.png` and `-phone.png`. */
export async function screenshotBoth(page: Page, dir: string, name: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(dir, `${name}-desktop.png`), fullPage: true, animations: "disabled" });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(dir, `${name}-phone.png`), fullPage: true, animations: "disabled" });
  await page.setViewportSize(before);
}

/** The text a QR code image on the page holds (decoded from a screenshot of the element by `jsqr`), or null. */
export async function decodeQr(page: Page, selector: string): Promise<string | null> {
  await page.waitForFunction((s) => {
    const img = document.querySelector(s) as HTMLImageElement | null;
    return Boolean(img && img.complete && img.naturalWidth > 0);
  }, selector);
  const png = PNG.sync.read(await page.locator(selector).screenshot());
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown; failureSummary?: string }> };

/**
 * axe-core's WCAG 2.x A/AA checks on the page as it is. axe is evaluated through the
 * DevTools protocol, so the page's Content-Security-Policy (which would refuse an
 * injected script) stays as it is.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
}

/** Violations that would stop someone using the page: axe's serious and critical ones. */
export const seriousOf = (violations: AxeViolation[]) => violations.filter((v) => v.impact === "serious" || v.impact === "critical");

/** Every request the context makes, so a test can check none leaves the service. */
export function recordRequests(context: BrowserContext): string[] {
  const urls: string[] = [];
  context.on("request", (request) => urls.push(request.url()));
  return urls;
}

/** Console errors and CSP reports of a page (a refused resource shows up here). */
export function recordConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}
