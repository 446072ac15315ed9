/**
 * `npm run build`: bundles the roles (`scripts/role.ts`) into `dist/role.js` and its chunks,
 * run as `bun dist/role.js <role>`. A bundled role keeps only the code it uses, already
 * parsed from one file per chunk, instead of every module of every library as written:
 * ~20 MB less memory per process (docs/decisions/performance.md). It still reads its run-time files
 * (migrations, checkout assets, Ponder) from the project's directory,
 * which is why the output must sit one level below it (`config/projectRoot.ts`).
 */
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fromProjectRoot, projectRoot } from "../config/projectRoot.ts";

export async function buildRoles(outdir = fromProjectRoot("dist")): Promise<string> {
  if (resolve(dirname(outdir)) !== resolve(projectRoot)) throw new Error(`${outdir}: the bundle must be one level below ${projectRoot}`);
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [fromProjectRoot("scripts/role.ts"), fromProjectRoot("rails/evm/settlement/signingThread.worker.ts")],
    outdir,
    target: "bun",
    splitting: true,
    // Names kept: stack traces and profiles stay readable (and map to the sources).
    minify: { whitespace: true, syntax: true },
    sourcemap: "linked",
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]" },
  });
  if (!result.success) throw new AggregateError(result.logs, "bundling the roles failed");
  return resolve(outdir, "role.js");
}

if (import.meta.main) {
  const entry = await buildRoles();
  console.log(`built ${entry}: run a role with \`bun ${entry} api|worker|indexer|solana|relayer\``);
}
