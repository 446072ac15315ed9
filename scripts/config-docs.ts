/**
 * Writes docs/configuration.md from the environment schema (`config/env/*.ts` and each rail's section, `plugins/config.ts`):
 * `bun scripts/config-docs.ts` writes it; `--check` exits 1 when the file differs from what
 * it would write (`npm test` runs it, so the page cannot drift from the schema); `--out <path>`
 * writes or checks another file.
 */
import { envSections } from "../plugins/config.ts";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { perNetworkVariables } from "../config/env.ts";
import { renderConfigurationDoc } from "./lib/configDocs.ts";

const args = process.argv.slice(2);
const check = args.includes("--check");
const outIndex = args.indexOf("--out");
const root = resolve(import.meta.dir, "..");
const target = outIndex >= 0 && args[outIndex + 1] ? resolve(args[outIndex + 1]!) : resolve(root, "docs/configuration.md");
const unknown = args.filter((a, i) => a !== "--check" && a !== "--out" && i !== outIndex + 1);
if (unknown.length > 0 || (outIndex >= 0 && !args[outIndex + 1])) {
  console.error("usage: bun scripts/config-docs.ts [--check] [--out <path>]");
  process.exit(2);
}

let page: string;
try {
  page = renderConfigurationDoc(envSections, perNetworkVariables);
} catch (error) {
  console.error(`config-docs: ${(error as Error).message}`);
  process.exit(1);
}
const shown = relative(process.cwd(), target) || target;
if (check) {
  if (!existsSync(target) || readFileSync(target, "utf8") !== page) {
    console.error(`config-docs: ${shown} is out of date with the environment schema (config/env/*.ts); run \`npm run docs:config\` and commit it`);
    process.exit(1);
  }
  console.log(`config-docs: ${shown} is up to date`);
} else {
  writeFileSync(target, page);
  console.log(`config-docs: wrote ${shown}`);
}
