import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Issue 43: `db/` is data access only — events are written by `reconcile/` (payment state,
 * bridge progress, creation, closing) and `payouts/` (money out), never by a query module;
 * money goes out only through `payouts/`, whose face is its `index.ts`.
 */
const root = join(import.meta.dir, "../..");
const PRODUCT = ["api", "config", "db", "domain", "indexer", "jobs", "metrics", "payouts", "rails", "rates", "reconcile", "scripts", "webhooks"];

const sources = (() => {
  const files: Array<{ path: string; text: string }> = [];
  for (const dir of PRODUCT) {
    for (const path of new Glob(`${dir}/**/*.ts`).scanSync({ cwd: root })) {
      if (path.includes("/generated/") || path.endsWith(".d.ts")) continue;
      files.push({ path, text: readFileSync(join(root, path), "utf8") });
    }
  }
  return files;
})();

/** The names a file imports from modules whose path ends in `module`. */
function importedFrom(text: string, module: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g)) {
    if (!match[2]!.endsWith(module)) continue;
    names.push(...match[1]!.split(",").map((n) => n.replace(/^\s*type\s+/, "").trim()).filter(Boolean));
  }
  return names;
}

const EVENT_WRITERS = ["recordPaymentEvent", "recordPaymentEvents", "writePaymentEvents"];

describe("who writes events", () => {
  test("the scan sees the product (a scan of nothing would pass anything)", () => {
    expect(sources.length).toBeGreaterThan(200);
    expect(sources.some((f) => f.path === "payouts/transferLedger.ts")).toBe(true);
  });

  test("only reconcile/ and payouts/ call the outbox's writers", () => {
    const writers = sources.filter((f) => importedFrom(f.text, "/paymentEvents.ts").some((n) => EVENT_WRITERS.includes(n))).map((f) => f.path);
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.filter((path) => !path.startsWith("reconcile/") && !path.startsWith("payouts/"))).toEqual([]);
  });

  test("no db/ module decides a payment's transition or writes an event", () => {
    // The outbox's own module (db/paymentEvents.ts) defines the writers: it stores what it is given.
    const deciding = sources.filter((f) => f.path.startsWith("db/") && f.path !== "db/paymentEvents.ts" && /\beventsForTransition\b|\brecordPaymentEvents?\(|\bwritePaymentEvents\(/.test(f.text));
    expect(deciding.map((f) => f.path)).toEqual([]);
  });
});

describe("money out has one home", () => {
  test("api/ and jobs/ reach payouts/ only through its index.ts", () => {
    const reaching = sources.filter((f) => /^(api|jobs)\//.test(f.path) && [...f.text.matchAll(/from "([^"]*\/payouts\/[^"]*)"/g)].some((m) => !m[1]!.endsWith("/payouts/index.ts")));
    expect(reaching.map((f) => f.path)).toEqual([]);
  });

  test("a rail's money-out steps are driven from payouts/ alone (with the transfer ledger)", () => {
    const callers = sources.filter((f) => !f.path.startsWith("rails/") && /\.(executeTransferOut|recheckTransferOut|cancelTransferOut)\(/.test(f.text)).map((f) => f.path);
    expect(callers).toEqual(["payouts/driveTransfer.ts"]);
  });

  test("the revert limit is one rule: only payouts/revertLimit.ts counts reverted transfers", () => {
    expect(sources.filter((f) => /\brecentlyReverted\(/.test(f.text) && !f.path.startsWith("db/")).map((f) => f.path)).toEqual(["payouts/revertLimit.ts"]);
  });
});
