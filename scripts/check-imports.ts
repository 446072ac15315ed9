/**
 * `npm run check:imports`: fails when a product file imports `test/`, `harness/` or `devchain/` (by path or
 * as the workspace package `@stablepay/devchain`), when devchain/ imports anything outside
 * itself, or when
 * top-level product folders import each other in a cycle; prints what it finds (each cycle
 * with one import per edge, to start untangling from). Imports are read with the TypeScript
 * compiler's pre-processor (static, dynamic, `require`, `import type` alike: a type is a
 * dependency of the design too), and resolved as relative paths; the devchain package's
 * specifiers are mapped back to its folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "..");
export const PRODUCT = ["api", "config", "db", "domain", "indexer", "jobs", "metrics", "payouts", "plugins", "rails", "rates", "reconcile", "scripts", "webhooks"];
const FORBIDDEN = ["test", "harness", "devchain"];
/**
 * The sandbox's launcher (`npm start`) and the chains it starts, each rail's from its own folder
 * (`rails/<name>/sandbox.ts`): dev-only, so they may import `devchain/`; no product file may
 * import them, not even lazily (the roles' bundle would hold devchain): the launcher finds a
 * rail's sandbox by its registered name.
 */
const DEV_ONLY_FILES = new Set(["scripts/start.ts", "scripts/lib/sandboxEnv.ts", "scripts/lib/sandboxChains.ts"]);
const devOnly = (file: string) => DEV_ONLY_FILES.has(file) || /^rails\/[^/]+\/sandbox\.ts$/.test(file);
/** devchain/ as a workspace package: `@stablepay/devchain/evm` is `devchain/evm`. */
const DEVCHAIN_PACKAGE = "@stablepay/devchain";

type Import = { from: string; to: string; specifier: string };

/** The repository path a package specifier names, when it is the devchain package's. */
function devchainPath(specifier: string): string | null {
  if (specifier === DEVCHAIN_PACKAGE) return "devchain/index";
  return specifier.startsWith(`${DEVCHAIN_PACKAGE}/`) ? `devchain/${specifier.slice(DEVCHAIN_PACKAGE.length + 1)}` : null;
}

export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".") || name === "generated") return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every relative or devchain-package import of every file in `folders`, as repository paths. */
function importsOf(root: string, folders: readonly string[]): Import[] {
  const imports: Import[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      const from = relative(root, file).split(sep).join("/");
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      for (const { fileName } of importedFiles) {
        if (fileName.startsWith(".")) {
          const to = relative(root, resolve(dirname(file), fileName)).split(sep).join("/");
          imports.push({ from, to, specifier: to });
          continue;
        }
        const to = devchainPath(fileName);
        if (to) imports.push({ from, to, specifier: fileName });
      }
    }
  }
  return imports;
}

const topOf = (path: string) => (path.includes("/") ? path.slice(0, path.indexOf("/")) : null);

/** Strongly connected components of more than one folder (Tarjan), each a set of folders importing each other in a cycle. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!order.has(v)) visit(v);
  return found;
}

/** What is wrong with the imports of the repository at `root`, one message per problem (none: all is well). */
export function checkImports(root = ROOT): string[] {
  const problems: string[] = [];
  // devchain/ is a package of its own: it imports nothing from the repository around it.
  for (const { from, to } of importsOf(root, ["devchain"])) {
    if (topOf(to) !== "devchain") problems.push(`${from} imports ${to}: devchain/ is a package of its own and imports nothing outside it`);
  }
  const imports = importsOf(root, PRODUCT);
  for (const { from, to, specifier } of imports) {
    const target = topOf(to);
    if (target && FORBIDDEN.includes(target) && !devOnly(from)) problems.push(`${from} imports ${specifier}: product code never imports ${target}/`);
    if (devOnly(to) && !devOnly(from)) problems.push(`${from} imports ${to}, which is dev-only (it starts the sandbox's chains)`);
  }
  // Folder → folder, with the first import seen of each edge as its example.
  const edges = new Map<string, Set<string>>();
  const example = new Map<string, Import>();
  for (const imp of imports) {
    const [a, b] = [topOf(imp.from), topOf(imp.to)];
    if (!a || !b || a === b || !PRODUCT.includes(b)) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)!.add(b);
    if (!example.has(`${a}>${b}`)) example.set(`${a}>${b}`, imp);
  }
  for (const component of cycles(edges)) {
    const inside = new Set(component);
    const lines = component.flatMap((a) =>
      [...(edges.get(a) ?? [])].filter((b) => inside.has(b)).map((b) => {
        const e = example.get(`${a}>${b}`)!;
        return `  ${a} → ${b}  (e.g. ${e.from} imports ${e.to})`;
      }),
    );
    problems.push(`import cycle between folders ${component.join(", ")}:\n${lines.join("\n")}`);
  }
  return problems;
}

if (import.meta.main) {
  const problems = checkImports();
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`\n${problems.length} import problem(s).`);
    process.exit(1);
  }
  console.log("imports: no product file imports test/, harness/ or devchain/ (@stablepay/devchain), devchain/ imports nothing outside itself; no import cycles between folders.");
}
