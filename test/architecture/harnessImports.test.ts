import { expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/**
 * Issue 43: `harness/` is what tests and benchmarks start; production code (and the dev
 * chains it may run beside) imports neither `harness/` nor `test/`.
 */
const root = join(import.meta.dir, "../..");
const PRODUCT = ["api", "config", "contracts", "db", "devchain", "domain", "indexer", "jobs", "metrics", "payouts", "rails", "rates", "reconcile", "scripts", "webhooks"];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'](\.{1,2}\/[^"'\n]*)["']/g;

/** The repo-relative paths of `text`'s relative imports, as seen from `file`. */
function importedPaths(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => relative(root, normalize(join(root, dirname(file), m[1]!))));
}

test("importedPaths resolves relative imports to repo paths (so the check below can fail)", () => {
  const text = `import { a } from "../../harness/testApi.ts";\nconst b = await import("../x.ts");\nimport "./y.ts";`;
  expect(importedPaths("api/routes/z.ts", text)).toEqual(["harness/testApi.ts", "api/x.ts", "api/routes/y.ts"]);
});

test("no product file imports harness/ or test/", () => {
  const offenders: string[] = [];
  for (const dir of PRODUCT) {
    for (const path of new Glob(`${dir}/**/*.{ts,js}`).scanSync({ cwd: root })) {
      if (path.includes("/generated/") || path.includes("node_modules/")) continue;
      for (const imported of importedPaths(path, readFileSync(join(root, path), "utf8"))) {
        if (/^(harness|test)\//.test(imported)) offenders.push(`${path} -> ${imported}`);
      }
    }
  }
  expect(offenders).toEqual([]);
});
