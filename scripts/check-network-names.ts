/**
 * `npm run check:network-names`: lists the product files outside a rail's folder
 * (`rails/<name>/`) and the registration (`plugins/`) that still name a network type as a
 * string (`"solana"`, `"evm"`: a discriminant, a literal type, an enum member) or as the key of
 * a map (`{ evm: …, solana: … }`); comments and other identifiers do not count. Each file left is in `ALLOWED` with why; the check fails on a file
 * not listed, and on a listed file that no longer names one (so the list only shrinks). See
 * docs/decisions/network-plugins.md.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { plugins } from "../plugins/index.ts";
import { PRODUCT, sourceFiles } from "./check-imports.ts";

const ROOT = resolve(import.meta.dir, "..");

/** Files that still name a network type, and why (the rest of issue 43's "one folder plus one registration"). */
export const ALLOWED: Readonly<Record<string, string>> = {
  "scripts/lib/roleEnv.ts": "the sandbox hands each role both operators' addresses",
  "scripts/compile-contracts.ts": "solc's output field `evm`, not a network type",
  "config/indexer.ts": "the indexer (Ponder's root) follows EVM networks only",
  "config/bridge.ts": "bridges run between EVM networks: their addresses are checked as EVM addresses",
  "rails/ports/chain.ts": "`messageSigner`: the browser wallet interface, named like a type",
  "scripts/start.ts": "the sandbox supervisor's list of roles (the Solana subscriber among them)",
};

type Finding = { file: string; names: string[] };

/** The network-type names `source` holds as string literals or object keys. */
function namedTypes(file: string, source: string, names: Set<string>): string[] {
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && names.has(node.text)) found.add(node.text);
    // A key of an object or object type (`{ evm: …, solana: … }`): a map by network type.
    if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isPropertySignature(node)) && ts.isIdentifier(node.name) && names.has(node.name.text)) found.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS));
  return [...found].sort();
}

/** Every product file outside the rails' own folders and the registration that names a network type as a string. */
export function filesNamingNetworkTypes(root = ROOT): Finding[] {
  const names = new Set(plugins.flatMap((p) => (p.networkType ? [p.networkType.type as string] : [])));
  const own = [...plugins.map((p) => `rails/${p.name}/`), "plugins/"];
  return PRODUCT.flatMap((folder) => sourceFiles(join(root, folder)))
    .map((path) => relative(root, path).split(sep).join("/"))
    .filter((file) => !own.some((prefix) => file.startsWith(prefix)))
    .map((file) => ({ file, names: namedTypes(file, readFileSync(join(root, file), "utf8"), names) }))
    .filter((f) => f.names.length > 0);
}

/** What is wrong: files naming a type that are not allowed, and allowed files that no longer do. */
export function checkNetworkNames(root = ROOT): string[] {
  const found = filesNamingNetworkTypes(root);
  const named = new Set(found.map((f) => f.file));
  return [
    ...found.filter((f) => !(f.file in ALLOWED)).map((f) => `${f.file} names network type ${f.names.map((n) => `"${n}"`).join(", ")}: move it into rails/<name>/ or the registration (plugins/)`),
    ...Object.keys(ALLOWED).filter((file) => !named.has(file)).map((file) => `${file} no longer names a network type: remove it from ALLOWED`),
  ];
}

if (import.meta.main) {
  const problems = checkNetworkNames();
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  const left = filesNamingNetworkTypes();
  console.log(`network names: ${left.length} file(s) outside rails/<name>/ and plugins/ still name a network type, each allowed:`);
  for (const f of left) console.log(`  ${f.file} (${f.names.join(", ")}): ${ALLOWED[f.file]}`);
}
