import { expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";
import { getTableName, isTable } from "drizzle-orm";
import { buildConfigWith, CORE_ROLES, CORE_SECRET_READERS } from "../../config/index.ts";
import { envSchema as coreEnvSchema } from "../../config/env.ts";
import * as serviceTables from "../../db/schema/index.ts";
import { buildConfig, catalogue, envSchema, networkTypes, railConfigSections } from "../../plugins/config.ts";
import { plugins, railRole } from "../../plugins/index.ts";
import { ROLES, SECRET_READERS } from "../../plugins/roles.ts";
import { chainFor, ingestFor, ingests } from "../../rails/index.ts";
import { solanaPlugin } from "../../rails/solana/plugin.ts";
import { ALLOWED, ALLOWED_RAIL_IMPORTS, checkNetworkNames, filesImportingRails, filesNamingNetworkTypes } from "../../scripts/check-network-names.ts";

const tableNames = (module: Readonly<Record<string, unknown>>) => Object.values(module).filter(isTable).map(getTableName).sort();

test("outside rails/<name>/ and plugins/, only the allowed files name a network type, each for its stated reason", () => {
  expect(checkNetworkNames()).toEqual([]);
  expect(filesNamingNetworkTypes().map((f) => f.file).sort()).toEqual(Object.keys(ALLOWED).sort());
});

test("the check finds a network type named as a string or a map's key, not in a comment nor inside the rail's folder", () => {
  const root = mkdtempSync(join(tmpdir(), "network-names-"));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write("api/branch.ts", 'export const f = (n: { type: string }) => n.type === "solana";\n');
    write("jobs/byType.ts", "export const m = { evm: 1 };\n");
    write("db/comment.ts", "// the solana rail's rows, \"solana\" in a comment\nexport const x = `evm ${1}`;\n");
    write("rails/solana/own.ts", 'export const t = "solana";\n');
    write("plugins/index.ts", 'export const t = "evm";\n');
    expect(filesNamingNetworkTypes(root)).toEqual([
      { file: "api/branch.ts", names: ["solana"] },
      { file: "jobs/byType.ts", names: ["evm"] },
    ]);
    const problems = checkNetworkNames(root);
    expect(problems.filter((p) => p.includes("move it into"))).toHaveLength(2);
    // An allowed file that names none any more is reported, so the list only shrinks.
    expect(problems.filter((p) => p.endsWith("remove it from ALLOWED"))).toHaveLength(Object.keys(ALLOWED).length);
    expect(problems.filter((p) => p.endsWith("remove it from ALLOWED_RAIL_IMPORTS"))).toHaveLength(Object.keys(ALLOWED_RAIL_IMPORTS).length);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the check finds imports of a rail's folder from outside it, but not the registration's nor the ports' face", () => {
  const root = mkdtempSync(join(tmpdir(), "rail-imports-"));
  try {
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write("jobs/sweepSolana.ts", 'import { x } from "../rails/solana/transfers/x.ts";\nexport const y = x;\n');
    write("api/lazy.ts", 'export const load = () => import("../rails/evm/client.ts");\n');
    write("reconcile/ports.ts", 'import { chainFor } from "../rails/index.ts";\nexport { chainFor };\n');
    write("rails/solana/own.ts", 'import { a } from "./other.ts";\nexport { a };\n');
    write("rails/plugins.ts", 'import { solanaPlugin } from "./solana/plugin.ts";\nexport const plugins = [solanaPlugin];\n');
    expect(filesImportingRails(root)).toEqual([
      { file: "api/lazy.ts", names: ["evm"] },
      { file: "jobs/sweepSolana.ts", names: ["solana"] },
    ]);
    expect(checkNetworkNames(root).filter((p) => p.includes("go through the ports"))).toHaveLength(2);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("outside its folder, only the allowed files import a rail", () => {
  const allowed = Object.keys(ALLOWED_RAIL_IMPORTS);
  for (const { file } of filesImportingRails()) expect(allowed.some((key) => (key.endsWith("/") ? file.startsWith(key) : file === key))).toBe(true);
  // Solana's folder is imported by x402's Solana side alone: its ports load through its plugin (`RailPlugin.ports`).
  expect(filesImportingRails().filter((f) => f.names.includes("solana")).map((f) => f.file).sort()).toEqual(["rails/x402/svmChain.ts", "rails/x402/svmSettlement.ts"]);
});

test("Solana's variables are its section's alone: none is the service's own, and each reaches the whole schema through the registration", () => {
  const section = solanaPlugin.config!;
  const own = Object.keys(section.env.shape);
  expect(own.length).toBeGreaterThan(10);
  expect(Object.keys(coreEnvSchema.shape).filter((name) => /^(SOLANA|HELIUS)_/.test(name))).toEqual([]);
  expect(Object.keys(envSchema.shape).filter((name) => /^(SOLANA|HELIUS)_/.test(name)).sort()).toEqual(own.filter((name) => /^(SOLANA|HELIUS)_/.test(name)).sort());
  expect(railConfigSections).toContain(section);
});

test("config.solana is built by the Solana section: without the registration there is none, and its checks are the section's", () => {
  const env = { SOLANA_DEPOSIT_POOL_SIZE: "10", SOLANA_DEPOSIT_POOL_REFILL_BELOW: "5" };
  expect("solana" in buildConfigWith({ sections: [], networkTypes }, env)).toBe(false);
  expect(buildConfig(env).solana.depositPool).toEqual({ size: 10, refillBelow: 5 });
  expect(() => buildConfigWith({ sections: railConfigSections, networkTypes }, { SOLANA_DEPOSIT_POOL_SIZE: "5", SOLANA_DEPOSIT_POOL_REFILL_BELOW: "10" })).toThrow("SOLANA_DEPOSIT_POOL_REFILL_BELOW: must not exceed SOLANA_DEPOSIT_POOL_SIZE");
});

test("Solana's tables are its plugin's: the service's schema has none of them, and drizzle-kit reads them from the rail's folder", async () => {
  const own = tableNames(solanaPlugin.tables!);
  expect(own).toEqual(["solana_account_cursors", "solana_address_scans", "solana_credits", "solana_deposit_addresses", "solana_deposit_seeds", "solana_ingest_heads"]);
  expect(tableNames(serviceTables).filter((name) => name.startsWith("solana_"))).toEqual([]);
  const { default: drizzleConfig } = await import("../../drizzle.config.ts");
  expect(drizzleConfig.schema).toEqual(["./db/schema/index.ts", "./rails/*/tables.ts"]);
  for (const plugin of plugins.filter((p) => p.tables)) {
    expect(tableNames(await import(`../../rails/${plugin.name}/tables.ts`))).toEqual(tableNames(plugin.tables!));
  }
});

test("the solana role, its /metrics port and which role reads its secrets are the plugin's", () => {
  const config = buildConfig({ SOLANA_METRICS_PORT: "9999" });
  expect(railRole("solana")).toBe(solanaPlugin.role!);
  expect(railRole("solana")!.metricsPort(config)).toBe(9999);
  expect(config.operator.metricsPorts).toEqual({ worker: 9464, indexer: 9465, solana: 9999 });
  expect(railRole("api")).toBeUndefined();
  expect(CORE_ROLES).not.toContain("solana");
  expect(ROLES).toEqual([...CORE_ROLES, "solana"]);
  expect(Object.keys(CORE_SECRET_READERS).filter((name) => name.startsWith("SOLANA_"))).toEqual([]);
  expect(Object.entries(SECRET_READERS).filter(([name]) => name.startsWith("SOLANA_"))).toEqual(Object.entries(solanaPlugin.config!.secretReaders!));
  // Without the registration, the rail's role is no role at all.
  expect(() => buildConfigWith({ sections: [], networkTypes }, { STABLEPAY_ROLE: "solana" })).toThrow("STABLEPAY_ROLE: must be one of api, worker, indexer, relayer");
  expect(buildConfig({ STABLEPAY_ROLE: "solana" }).role).toBe("solana");
});

test("every registered network type has its spec, its ports and its folder", () => {
  const types = plugins.filter((p) => p.networkType);
  expect(types.map((p) => [p.name, p.networkType!.type])).toEqual([
    ["evm", "evm"],
    ["solana", "solana"],
  ]);
  for (const plugin of types) {
    const chain = chainFor({ type: plugin.networkType!.type });
    expect(chain?.type).toBe(plugin.networkType!.type);
    expect(ingestFor({ type: plugin.networkType!.type })).toBeDefined();
    expect(plugin.networkType!.catalogue.every((n) => n.type === plugin.name)).toBe(true);
    // The chain port speaks the spec's address format.
    expect(chain!.addressDescription).toBe(plugin.networkType!.address.description);
  }
  expect(ingests()).toHaveLength(types.length);
  expect(networkTypes).toEqual(types.map((p) => p.networkType!));
  // The built-in networks are every type's, mainnets first, as the catalogue always listed them.
  expect(catalogue.map((n) => n.shortName)).toEqual(["ethereum", "base", "polygon", "arbitrum", "optimism", "bsc", "solana", "sepolia", "base-sepolia", "solana-devnet"]);
});

/** The modules `entry` loads when it is imported: static imports and re-exports, `import type` and dynamic `import()` aside. */
function loadedBy(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
    for (const node of source.statements) {
      const typeOnly = (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly) || (ts.isExportDeclaration(node) && node.isTypeOnly);
      const specifier = (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : null;
      if (typeOnly || !specifier) continue;
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else seen.add(specifier);
    }
  };
  visit(resolve(import.meta.dir, "../..", entry));
  return seen;
}

test("the registration is light: building the configuration (Ponder's config does) loads no db/ client and no chain library", () => {
  const loaded = [...loadedBy("plugins/config.ts")];
  expect(loaded.filter((m) => m.endsWith("/db/client.ts") || m === "bun" || m.startsWith("@solana/") || m === "pg")).toEqual([]);
  expect(loaded.some((m) => m.endsWith("/rails/solana/settings/config.ts"))).toBe(true);
});
