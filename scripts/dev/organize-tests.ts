/**
 * Moves test files so they mirror the product tree (issue 43, "tests you can find"), and
 * test/helpers/ to harness/. Repeatable: run it again after merging branches that add tests;
 * a second run moves nothing.
 *
 *   bun scripts/dev/organize-tests.ts            # move (git mv) and rewrite paths
 *   bun scripts/dev/organize-tests.ts --dry-run  # print the plan only
 *
 * Which test goes where: the OVERRIDES table first, then the product module named like the test,
 * then the product folder the test imports most. Only files in the legacy folders (LEGACY) are
 * candidates; suites by purpose (test/e2e, test/security, test/compat, test/faults) and
 * test/devchain (already a product folder) stay. Files no rule places stay and are listed.
 * Relative imports (and `import.meta`-relative path strings) are rewritten in moved files and in
 * every file importing a moved one; repo-relative mentions of moved paths in docs and comments
 * follow too. Dev-only: nothing in production runs it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, posix, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");
const dryRun = process.argv.includes("--dry-run");

/** Folders whose tests are placed by the rules below. */
const LEGACY = ["test/unit", "test/integration", "test/chains"];
const HELPERS = "test/helpers";
const HARNESS = "harness";
/** Product folders a test can mirror. */
const PRODUCT = ["api", "config", "contracts", "db", "devchain", "domain", "indexer", "jobs", "metrics", "payouts", "rails", "rates", "reconcile", "scripts", "webhooks"];
/** Modules nearly every integration test imports for setup: they vote only when nothing else does. */
const SETUP = new Set([
  "config/index.ts", "config/logger.ts", "config/logContext.ts", "config/projectRoot.ts", "db/client.ts",
  "db/schema/index.ts", "db/settlementWallets.ts", "db/merchants.ts", "domain/errors.ts",
  "devchain/freePort.ts", "contracts/artifacts/index.ts",
]);

/**
 * Where the rules guess wrong (or find nothing): old path -> new path, or null to keep it where
 * it is. Mostly tests that drive a route over HTTP (so import no route module) or check the
 * code base's shape (so import nothing).
 */
const OVERRIDES: Record<string, string | null> = {
  // Shape of the code base, not one module.
  "test/unit/eventWriters.test.ts": "test/architecture/eventWriters.test.ts",
  "test/unit/solanaLoadedOnUse.test.ts": "test/architecture/solanaLoadedOnUse.test.ts",
  "test/unit/checkImports.test.ts": "test/architecture/checkImports.test.ts",
  // Routes driven over HTTP through the harness's test API.
  "test/integration/payments.test.ts": "test/api/routes/payments.test.ts",
  "test/integration/checkout.test.ts": "test/api/routes/checkout.test.ts",
  "test/integration/crossChainCreate.test.ts": "test/api/routes/crossChainCreate.test.ts",
  "test/integration/crossChainViews.test.ts": "test/api/routes/crossChainViews.test.ts",
  "test/integration/sdkCompatRoutes.test.ts": "test/api/routes/sdkCompatRoutes.test.ts",
  "test/integration/operator.test.ts": "test/api/routes/operator.test.ts",
  "test/integration/cors.test.ts": "test/api/cors.test.ts",
  "test/integration/serviceFee.test.ts": "test/api/presenters/serviceFee.test.ts",
  "test/integration/validation.test.ts": "test/api/plugins/validation.test.ts",
  "test/integration/fuzz.test.ts": "test/api/requests/fuzz.test.ts",
  "test/integration/hostileInput.test.ts": "test/api/requests/hostileInput.test.ts",
  "test/unit/checkoutLive.test.ts": "test/api/checkout/checkoutLive.test.ts",
  "test/unit/checkoutWalletFlow.test.ts": "test/api/checkout/checkoutWalletFlow.test.ts",
  // Roles and CLI commands, run as processes.
  "test/integration/apiRoleKeys.test.ts": "test/scripts/apiRoleKeys.test.ts",
  "test/integration/bundledRoles.test.ts": "test/scripts/bundledRoles.test.ts",
  "test/integration/webhookCli.test.ts": "test/scripts/cli/webhookCli.test.ts",
  "test/unit/roleSecrets.test.ts": "test/config/roleSecrets.test.ts",
  // Named like a config section or schema file, but testing something else.
  "test/unit/bridgeConfig.test.ts": "test/config/bridgeConfig.test.ts",
  "test/unit/localBridge.test.ts": "test/rails/bridge/local/localBridge.test.ts",
  "test/unit/rates.test.ts": "test/rates/rates.test.ts",
  "test/integration/rates.test.ts": "test/rates/httpProvider.test.ts",
  // Two notifyLoop tests: without a database (wake-ups) and against the real Postgres.
  "test/unit/notifyLoop.test.ts": "test/db/notifyLoopWakeups.test.ts",
  // Tests of one rail's part that import it beside others.
  "test/integration/analytics.test.ts": "test/db/analytics.test.ts",
  "test/integration/evidenceQuery.test.ts": "test/rails/evm/readModel/evidenceQuery.test.ts",
  "test/integration/splitEvidence.test.ts": "test/rails/evm/readModel/splitEvidence.test.ts",
  "test/integration/reconcileHeads.test.ts": "test/reconcile/reconcileHeads.test.ts",
  "test/integration/relayAdapter.test.ts": "test/rails/bridge/relay/relayAdapter.test.ts",
  "test/integration/relayBridge.test.ts": "test/rails/bridge/relayBridge.test.ts",
  "test/integration/sdkSolanaTransfer.test.ts": "test/rails/solana/sdkSolanaTransfer.test.ts",
  "test/integration/solanaReplay.test.ts": "test/rails/solana/ingest/solanaReplay.test.ts",
  "test/integration/sharedGauges.test.ts": "test/metrics/sharedGauges.test.ts",
  "test/integration/webhookRelay.test.ts": "test/webhooks/webhookRelay.test.ts",
  "test/integration/webhooks.test.ts": "test/webhooks/webhooks.test.ts",
  "test/unit/refundPolicy.test.ts": "test/payouts/refundPolicy.test.ts",
  "test/unit/refundSignature.test.ts": "test/payouts/refundSignature.test.ts",
  "test/unit/settleSimulated.test.ts": "test/domain/settleSimulated.test.ts",
  // Ponder's checkpoint format; imports Ponder by a relative path in a variable (keep the depth).
  "test/unit/ponderCheckpoint.test.ts": "test/indexer/ponderCheckpoint.test.ts",
  // The contracts on a real anvil (test/chains held them).
  "test/chains/forwarder.test.ts": "test/contracts/forwarder.test.ts",
  "test/chains/settlement.test.ts": "test/contracts/settlement.test.ts",
  "test/chains/splitPayment.test.ts": "test/contracts/splitPayment.test.ts",
  "test/chains/testTokens.test.ts": "test/contracts/testTokens.test.ts",
};

/** Folder mentions in prose (after each moved file's own path is rewritten). */
const FOLDER_MENTIONS: Record<string, string> = { "test/helpers": HARNESS, "test/chains": "test/contracts" };

type Move = { from: string; to: string; why: string };

const posixRel = (from: string, to: string) => relative(from, to).split("\\").join("/");

function walk(dir: string, keep: (path: string) => boolean): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const path = posix.join(dir, name);
    if (["node_modules", ".git", ".data", "generated"].includes(name)) return [];
    return statSync(join(root, path)).isDirectory() ? walk(path, keep) : keep(path) ? [path] : [];
  });
}

/** Product modules by base name ("refundMessage" -> ["payouts/refundMessage.d.ts", ...]). */
const modulesByName = new Map<string, string[]>();
for (const path of PRODUCT.flatMap((dir) => walk(dir, (p) => /\.(ts|js)$/.test(p)))) {
  const name = basename(path).replace(/(\.d)?\.(ts|js)$/, "");
  modulesByName.set(name, [...(modulesByName.get(name) ?? []), path]);
}

// Relative specifiers: import/export ... from "x", import("x"), import "x", require("x").
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(["'])(\.{1,2}(?:\/[^"'\n]*)?)\2/g;
// On a line naming import.meta, any string that starts like a relative path.
const META_STRING = /(["'])(\.{1,2}(?:\/[^"'\n]*)?)\1/g;

/** Every relative path a file names, resolved to a repo-relative path. */
function relativeTargets(file: string, text: string): string[] {
  const dir = posix.dirname(file);
  const specs = [...text.matchAll(SPECIFIER)].map((m) => m[3]!);
  for (const line of text.split("\n")) {
    if (line.includes("import.meta")) specs.push(...[...line.matchAll(META_STRING)].map((m) => m[2]!));
  }
  return specs.map((spec) => posix.normalize(posix.join(dir, spec)));
}

/** The directory a test belongs in by the rules, or why none. */
function ruleTarget(test: string, text: string): { dir: string; why: string } | { reason: string } {
  const imported = relativeTargets(test, text).filter((p) => PRODUCT.some((d) => p.startsWith(`${d}/`)));
  const name = basename(test).replace(/\.test\.ts$/, "");
  const named = modulesByName.get(name) ?? [];
  const namedImported = named.filter((m) => imported.includes(m));
  const byName = named.length === 1 ? named : namedImported;
  if (byName.length === 1) return { dir: posix.dirname(byName[0]!), why: `named like ${byName[0]}` };

  const votes = new Map<string, number>();
  const voters = imported.some((p) => !SETUP.has(p)) ? imported.filter((p) => !SETUP.has(p)) : imported;
  for (const module of new Set(voters)) votes.set(posix.dirname(module), (votes.get(posix.dirname(module)) ?? 0) + 1);
  if (votes.size === 0) return { reason: "imports no product module" };
  const top = Math.max(...votes.values());
  const tied = [...votes].filter(([, n]) => n === top).map(([dir]) => dir);
  // A tie between sibling folders goes to their common parent, if it is inside a product folder.
  const common = tied.reduce((a, b) => {
    const pa = a.split("/"), pb = b.split("/");
    let i = 0;
    while (i < pa.length && pa[i] === pb[i]) i++;
    return pa.slice(0, i).join("/");
  });
  if (!common) return { reason: `imports ${tied.join(", ")} equally` };
  return { dir: common, why: tied.length === 1 ? `imports ${common}/ most` : `imports ${tied.join(", ")} equally` };
}

function plan(): { moves: Move[]; stay: Array<{ path: string; reason: string }> } {
  const moves: Move[] = [];
  const stay: Array<{ path: string; reason: string }> = [];
  for (const helper of walk(HELPERS, () => true)) {
    moves.push({ from: helper, to: posix.join(HARNESS, posixRel(HELPERS, helper)), why: "harness" });
  }
  const claimed = new Set<string>();
  for (const test of LEGACY.flatMap((dir) => walk(dir, (p) => p.endsWith(".test.ts"))).sort()) {
    let to: string;
    let why: string;
    if (test in OVERRIDES) {
      const target = OVERRIDES[test];
      if (target === null || target === undefined) {
        stay.push({ path: test, reason: "override keeps it" });
        continue;
      }
      to = target;
      why = "override";
    } else {
      const found = ruleTarget(test, readFileSync(join(root, test), "utf8"));
      if ("reason" in found) {
        stay.push({ path: test, reason: found.reason });
        continue;
      }
      to = posix.join("test", found.dir, basename(test));
      why = found.why;
    }
    if (claimed.has(to) || existsSync(join(root, to))) {
      stay.push({ path: test, reason: `${to} is taken (add an override)` });
      continue;
    }
    claimed.add(to);
    moves.push({ from: test, to, why });
  }
  // Other files in the legacy folders (fixtures, shared setup) stay; say so.
  for (const other of LEGACY.flatMap((dir) => walk(dir, (p) => !p.endsWith(".test.ts")))) {
    stay.push({ path: other, reason: "not a test file" });
  }
  return { moves, stay };
}

/** Where a path named before the move is now: moved in this run, or to harness/ by an earlier one. */
function whereNow(target: string, moved: Map<string, string>): string | undefined {
  for (const suffix of ["", ".ts", "/index.ts"]) {
    const to = moved.get(target + suffix);
    if (to) return suffix ? to.slice(0, -suffix.length) : to;
  }
  if (target.startsWith(`${HELPERS}/`) && !existsSync(join(root, target))) return posix.join(HARNESS, target.slice(HELPERS.length + 1));
  return undefined;
}

/** `text` of `file` (now at `newFile`) with its relative paths pointing where their targets now are. */
function rewrite(file: string, newFile: string, text: string, moved: Map<string, string>): string {
  const oldDir = posix.dirname(file);
  const newDir = posix.dirname(newFile);
  const fix = (spec: string): string => {
    const target = posix.normalize(posix.join(oldDir, spec));
    const newTarget = whereNow(target, moved) ?? target;
    if (newTarget === target && newDir === oldDir) return spec;
    let rel = posixRel(newDir, newTarget) || ".";
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return spec.endsWith("/") && !rel.endsWith("/") ? `${rel}/` : rel;
  };
  const lines = text.replace(SPECIFIER, (_, lead, q, spec) => `${lead}${q}${fix(spec)}${q}`).split("\n");
  return lines
    .map((line) => (line.includes("import.meta") ? line.replace(META_STRING, (_, q, spec) => `${q}${fix(spec)}${q}`) : line))
    .join("\n");
}

/** Repo-relative mentions of moved paths (docs, comments, CI) follow the move. */
function rewriteMentions(text: string, moved: Map<string, string>): string {
  let out = text;
  for (const [from, to] of moved) {
    out = out.replace(new RegExp(`(?<![\\w./-])${from.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w/-])`, "g"), to);
  }
  for (const [from, to] of Object.entries(FOLDER_MENTIONS)) {
    out = out.replace(new RegExp(`(?<![\\w./-])${from}(?=/?(?![\\w-]))`, "g"), to);
  }
  return out;
}

/** Relative path strings in a moved file that no pattern above rewrote: check them by hand. */
function unrewritten(file: string, text: string): string[] {
  return text
    .split("\n")
    .map((line, i) => ({ line, i }))
    .filter(({ line }) => /["'`]\.\.?\//.test(line) && !line.includes("import.meta") && !new RegExp(SPECIFIER.source).test(line))
    .map(({ line, i }) => `${file}:${i + 1}: ${line.trim()}`);
}

function git(...args: string[]) {
  const result = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

const { moves, stay } = plan();
for (const move of moves) console.log(`${move.from} -> ${move.to}  (${move.why})`);
for (const { path, reason } of stay) console.log(`stays: ${path}  (${reason})`);
if (dryRun) process.exit(0);

const moved = new Map(moves.map((m) => [m.from, m.to]));
// This script and the test map describe the old folders on purpose.
const exempt = new Set([posixRel(root, import.meta.path), "test/README.md"]);
const sources = walk(".", (p) => /\.(ts|tsx|js|mjs)$/.test(p) && !p.endsWith(".d.ts") && !exempt.has(p));
const edits = new Map<string, string>();
for (const file of sources) {
  const text = readFileSync(join(root, file), "utf8");
  const newFile = moved.get(file) ?? file;
  const touches = newFile !== file || relativeTargets(file, text).some((t) => whereNow(t, moved) !== undefined);
  const next = rewriteMentions(touches ? rewrite(file, newFile, text, moved) : text, moved);
  if (newFile !== file && posix.dirname(newFile).split("/").length !== posix.dirname(file).split("/").length) {
    for (const warning of unrewritten(newFile, next)) console.log(`check: ${warning}`);
  }
  if (next !== text) edits.set(newFile, next);
}
for (const doc of [...walk(".", (p) => p.endsWith(".md")), ".ci/run", "package.json"]) {
  if (!existsSync(join(root, doc)) || exempt.has(doc)) continue;
  const text = readFileSync(join(root, doc), "utf8");
  const next = rewriteMentions(text, moved);
  if (next !== text) edits.set(posix.normalize(doc), next);
}

if (moves.length === 0 && edits.size === 0) {
  console.log("nothing to move");
  process.exit(0);
}
for (const { from, to } of moves) {
  mkdirSync(dirname(join(root, to)), { recursive: true });
  // git mv keeps history; a file not committed yet is simply renamed.
  if (spawnSync("git", ["ls-files", "--error-unmatch", from], { cwd: root }).status === 0) git("mv", from, to);
  else renameSync(join(root, from), join(root, to));
}
for (const [file, text] of edits) writeFileSync(join(root, file), text);
// git mv leaves the emptied folders behind.
for (const dir of [...LEGACY, HELPERS]) {
  if (existsSync(join(root, dir)) && walk(dir, () => true).length === 0) rmSync(join(root, dir), { recursive: true });
}

// The harness is type-checked like the tests.
const tsconfigPath = join(root, "tsconfig.json");
const tsconfig = readFileSync(tsconfigPath, "utf8");
if (moves.some((m) => m.to.startsWith(`${HARNESS}/`)) && !/"include":[^\]]*"harness"/.test(tsconfig)) {
  writeFileSync(tsconfigPath, tsconfig.replace(/("include":\s*\[[^\]]*"test")/, `$1, "${HARNESS}"`));
}
console.log(`moved ${moves.length} files, rewrote ${edits.size}`);
