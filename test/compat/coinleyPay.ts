import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * The published client SDK (`coinley-pay` on npm) as it ships, for the compatibility
 * suite. Its dependency tree (wagmi, Reown AppKit, Solana wallet adapters, React: about
 * 1,500 packages) is not installed: the package's tarball is fetched with npm's own client
 * (`npm pack`, from npm's cache when it has it), checked against the registry's integrity
 * hash pinned here, and unpacked under node_modules/.cache. What the tests run is the
 * package's own text: the `SimplePaymentAPI` class and the `splitPayment` params helper cut
 * out of `dist/index-*.js` (they use nothing but `fetch`), and the self-contained
 * `dist/coinley-vanilla.min.js` widget, loaded in Chromium.
 */
export const COINLEY_PAY = {
  version: "0.0.39",
  /** `npm view coinley-pay@0.0.39 dist.integrity`. */
  integrity: "sha512-FvM5jQ6mHK/Qgax5f5IohtYxNhut77C9K7ng1srSuIwKVDqQZZgm4ISSaJ+AY6S5xaiOOREKFrcDR6yX/htlFA==",
} as const;

const projectRoot = join(import.meta.dir, "../..");
const cacheDir = join(projectRoot, "node_modules", ".cache", `coinley-pay-${COINLEY_PAY.version}`);

/** The unpacked package's directory (`…/package`), fetched and checked on first use. */
export function coinleyPayDir(): string {
  const dir = join(cacheDir, "package");
  if (existsSync(join(dir, "package.json"))) return dir;
  const work = `${cacheDir}.${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", `coinley-pay@${COINLEY_PAY.version}`, "--pack-destination", work, "--prefer-offline", "--silent"], { cwd: work });
  if (pack.exitCode !== 0) throw new Error(`npm pack coinley-pay@${COINLEY_PAY.version} failed: ${pack.stderr.toString().trim()}`);
  const tarball = join(work, `coinley-pay-${COINLEY_PAY.version}.tgz`);
  const digest = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  if (digest !== COINLEY_PAY.integrity) throw new Error(`coinley-pay@${COINLEY_PAY.version}: integrity ${digest}, expected ${COINLEY_PAY.integrity}`);
  const untar = Bun.spawnSync(["tar", "xzf", tarball, "-C", work]);
  if (untar.exitCode !== 0) throw new Error(`could not unpack ${tarball}: ${untar.stderr.toString().trim()}`);
  // Another test process may have finished first: either copy is the same package.
  if (!existsSync(join(dir, "package.json"))) {
    mkdirSync(cacheDir, { recursive: true });
    try {
      renameSync(join(work, "package"), dir);
    } catch (error) {
      if (!existsSync(join(dir, "package.json"))) throw error;
    }
  }
  rmSync(work, { recursive: true, force: true });
  return dir;
}

/** The text of the package's main module (`dist/index-<hash>.js`: plain JavaScript). */
function indexSource(): string {
  const dist = join(coinleyPayDir(), "dist");
  const file = readdirSync(dist).find((f) => /^index-[\w-]+\.js$/.test(f));
  if (!file) throw new Error("coinley-pay: no dist/index-*.js");
  return readFileSync(join(dist, file), "utf8");
}

/** The source text between `start` (included) and `end` (excluded), exactly once in the module. */
function cut(source: string, start: string, end: string): string {
  const from = source.indexOf(start);
  if (from < 0 || source.indexOf(start, from + 1) >= 0) throw new Error(`coinley-pay: "${start}" not found once`);
  const to = source.indexOf(end, from);
  if (to < 0) throw new Error(`coinley-pay: "${end}" not found after "${start}"`);
  return source.slice(from, to);
}

/** What the SDK's API class answers (its methods return the service's JSON as they got it). */
export type SimplePaymentApi = {
  getNetworks(): Promise<any>;
  getTokens(): Promise<any>;
  createPayment(data: unknown): Promise<any>;
  verifyQRPayment(paymentId: string): Promise<any>;
  checkPaymentStatus(paymentId: string): Promise<any>;
  getContractInfo(chainId: string | number): Promise<any>;
  processPayment(paymentId: string, transactionHash: string, network: string, senderAddress: string): Promise<any>;
  failPayment(paymentId: string, reason?: string): Promise<any>;
  getSupportedDepositChains(): Promise<any>;
  createDepositPayment(data: unknown): Promise<any>;
  getDepositStatus(paymentId: string): Promise<any>;
  getDepositBalance(paymentId: string): Promise<any>;
};

/** The SDK's `splitPayment` arguments helper: validates the service's `contractCall.params` and turns numbers into bigints. */
export type CreateSplitPaymentParams = (params: unknown) => {
  token: string;
  amount: bigint;
  paymentId: string;
  recipient1: string;
  recipient2: string;
  recipient3: string;
  recipient1Percentage: bigint;
  recipient2Percentage: bigint;
  recipient3Percentage: bigint;
};

/**
 * `SimplePaymentAPI` and `createSplitPaymentParams` evaluated from the package's own text
 * (its logging goes to a silent console). Throws if the package no longer holds them as
 * 0.0.39 does.
 */
export function loadCoinleyPay(): { SimplePaymentAPI: new (baseUrl: string, publicKeyOrApiKey: string, apiSecret?: string | null) => SimplePaymentApi; createSplitPaymentParams: CreateSplitPaymentParams } {
  const source = indexSource();
  const apiClass = cut(source, "let SimplePaymentAPI$1 = class SimplePaymentAPI {", "const usePaymentFlow = ");
  const helpers = cut(source, "const validateAddress = (addr, name, allowZero = false) => {", "const categorizeSimulationError = ");
  const silent = { log() {}, warn() {}, error() {}, info() {}, debug() {} };
  const build = new Function("console", `${apiClass}\n${helpers}\nreturn { SimplePaymentAPI: SimplePaymentAPI$1, createSplitPaymentParams };`);
  return build(silent);
}

/** The vanilla widget's script and stylesheet, as the package ships them. */
export function coinleyVanilla(): { script: string; css: string } {
  const dist = join(coinleyPayDir(), "dist");
  return { script: readFileSync(join(dist, "coinley-vanilla.min.js"), "utf8"), css: readFileSync(join(dist, "style.css"), "utf8") };
}
