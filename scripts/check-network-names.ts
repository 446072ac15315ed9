/**
 * `npm run check:network-names`: lists the product files outside a rail's folder
 * (`rails/<name>/`) and the registration (`rails/plugins.ts`, `plugins/`) that still name a
 * network type as a string (`"solana"`, `"evm"`: a discriminant, a literal type, an enum
 * member) or as the key of a map (`{ evm: …, solana: … }`), comments and other identifiers
 * aside; and those that import a rail's folder. Each one left is in `ALLOWED` or
 * `ALLOWED_RAIL_IMPORTS` with why; the check fails on one not listed, and on a listed one
 * that no longer does (so the lists only shrink). See docs/decisions/network-plugins.md.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";
import { plugins } from "../plugins/index.ts";
import { PRODUCT, sourceFiles } from "./check-imports.ts";

const ROOT = resolve(import.meta.dir, "..");

/**
 * Files that still name a network type, and why (the rest of issue 43's "one folder plus one
 * registration"). None left: kept so that a file which must name one says why here.
 */
export const ALLOWED: Readonly<Record<string, string>> = {};

/**
 * Files and folders (a prefix ending in `/`) outside a rail's folder that import from it, and
 * why: a rail is named by its imports as much as by its type's name.
 */
export const ALLOWED_RAIL_IMPORTS: Readonly<Record<string, string>> = {
  "rails/bridge/": "the bridge runs between EVM networks: it reads them with EVM's clients and deploys EVM's contracts",
  "rails/x402/": "x402's `exact` scheme per network type: EIP-3009 authorizations with EVM's clients and signers, SPL transfers with Solana's connection and token accounts",
  "indexer/": "Ponder's root is the EVM ingest's process: its handlers are EVM's",
};

type Finding = { file: string; names: string[] };

/** Where each file outside a rail's folder, the rails' list and plugins/ imports a rail's folder from: `{ file, names: [rails] }`. */
export function filesImportingRails(root = ROOT): Finding[] {
  const rails = plugins.map((p) => p.name);
  const own = (file: string, rail: string) => file.startsWith(`rails/${rail}/`) || file === "rails/plugins.ts" || file.startsWith("plugins/");
  return PRODUCT.flatMap((folder) => sourceFiles(join(root, folder)))
    .map((path) => {
      const file = relative(root, path).split(sep).join("/");
      const targets = ts
        .preProcessFile(readFileSync(path, "utf8"), true, true)
        .importedFiles.filter((i) => i.fileName.startsWith("."))
        .map((i) => relative(root, resolve(dirname(path), i.fileName)).split(sep).join("/"));
      const names = rails.filter((rail) => !own(file, rail) && targets.some((t) => t.startsWith(`rails/${rail}/`)));
      return { file, names };
    })
    .filter((f) => f.names.length > 0);
}

const allowedImport = (file: string) => Object.keys(ALLOWED_RAIL_IMPORTS).find((key) => (key.endsWith("/") ? file.startsWith(key) : file === key));

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

/** What is wrong: files naming a type or importing a rail that are not allowed, and allowed ones that no longer do. */
export function checkNetworkNames(root = ROOT): string[] {
  const found = filesNamingNetworkTypes(root);
  const named = new Set(found.map((f) => f.file));
  const importing = filesImportingRails(root);
  const usedKeys = new Set(importing.map((f) => allowedImport(f.file)));
  return [
    ...importing.filter((f) => !allowedImport(f.file)).map((f) => `${f.file} imports rail ${f.names.join(", ")}: go through the ports (rails/index.ts) or move it into the rail's folder`),
    ...Object.keys(ALLOWED_RAIL_IMPORTS).filter((key) => !usedKeys.has(key)).map((key) => `${key} no longer imports a rail's folder: remove it from ALLOWED_RAIL_IMPORTS`),
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
  const importing = filesImportingRails();
  console.log(`rail imports: ${importing.length} file(s) outside a rail's folder import it, each allowed:`);
  for (const f of importing) console.log(`  ${f.file} (${f.names.join(", ")}): ${ALLOWED_RAIL_IMPORTS[allowedImport(f.file)!]}`);
}
