import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { z } from "zod";
import { perNetworkVariables } from "../../../config/env.ts";
import { envSection } from "../../../config/env/section.ts";

import { renderConfigurationDoc } from "../../../scripts/lib/configDocs.ts";
import { envSchema, envSections } from "../../../plugins/config.ts";
import { ROLES, SECRET_READERS } from "../../../plugins/roles.ts";

const root = resolve(import.meta.dir, "../../..");
const committed = readFileSync(join(root, "docs/configuration.md"), "utf8");
const rendered = renderConfigurationDoc(envSections, perNetworkVariables);
const dir = mkdtempSync(join(tmpdir(), "config-docs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the generator as `npm run docs:config` does, with the given flags. */
function run(...args: string[]) {
  const result = Bun.spawnSync([process.execPath, "scripts/config-docs.ts", ...args], { cwd: root, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** The entry of one variable in the page: from its heading to the next. */
function entryOf(page: string, heading: string): string {
  const start = page.indexOf(`### ${heading}\n`);
  if (start < 0) return "";
  const next = page.indexOf("\n#", start + 4);
  return page.slice(start, next < 0 ? undefined : next);
}

describe("docs/configuration.md, generated from the env schema", () => {
  test("every variable of the schema, and every per-network variable, has its entry in the committed page", () => {
    const keys = Object.keys(envSchema.shape);
    expect(keys.length).toBeGreaterThan(100);
    for (const key of keys) expect(entryOf(committed, `\`${key}\``)).toContain("read by: ");
    for (const family of perNetworkVariables) {
      for (const name of family.names) expect(committed).toContain(`\`${name}\``);
    }
    // The sections hold exactly the schema's variables: none left out of the page, none twice.
    expect(envSections.flatMap((s) => Object.keys(s.shape)).sort()).toEqual(keys.sort());
  });

  test("the committed page is what the schema generates, and --check says so", () => {
    expect(committed).toBe(rendered);
    const result = run("--check");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("up to date");
  });

  test("defaults, bounds and enum values come from zod", () => {
    expect(entryOf(rendered, "`PORT`")).toContain("integer 0–65535 · default `3000` · read by: api");
    expect(entryOf(rendered, "`APP_ENV`")).toContain("`development`, `test` or `production` · default `development`");
    expect(entryOf(rendered, "`DATABASE_POOL_SIZE`")).toContain("integer 1–200 · default `10`");
    expect(entryOf(rendered, "`CORS_ORIGINS`")).toContain("default `*`");
    expect(entryOf(rendered, "`NETWORKS_DISABLED`")).toContain("default empty");
    expect(entryOf(rendered, "`OPERATOR_TOKEN`")).toContain("text · unset by default · read by: ");
    expect(entryOf(rendered, "`LOG_LEVEL`")).toContain("`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` · default `info` · read by: every role");
  });

  test("--check fails on a copy that differs, and passes on an exact one", () => {
    const copy = join(dir, "configuration.md");
    expect(run("--out", copy).code).toBe(0);
    expect(readFileSync(copy, "utf8")).toBe(rendered);
    expect(run("--check", "--out", copy).code).toBe(0);

    writeFileSync(copy, rendered.replace("TCP port of the API.", "TCP port of the API, edited by hand."));
    const drifted = run("--check", "--out", copy);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain("is out of date with the environment schema");
    expect(drifted.stderr).toContain("npm run docs:config");

    rmSync(copy);
    expect(run("--check", "--out", copy).code).toBe(1);
  });

  test("a variable without a description, or without the roles that read it, fails the generation naming it", () => {
    const undescribed = envSection("Test", "A section.", { UNDESCRIBED_VARIABLE: z.string().optional() });
    expect(() => renderConfigurationDoc([...envSections, undescribed], perNetworkVariables)).toThrow("UNDESCRIBED_VARIABLE: has no description");
    // .describe() before .default() is lost: the generation catches it too.
    const lost = envSection("Test", "A section.", { DESCRIBED_TOO_EARLY: z.string().describe("Lost. Read by: api.").default("x") });
    expect(() => renderConfigurationDoc([lost], [])).toThrow("DESCRIBED_TOO_EARLY: has no description");
    const noRoles = envSection("Test", "A section.", { NO_ROLES: z.string().optional().describe("Does something.") });
    expect(() => renderConfigurationDoc([noRoles], [])).toThrow('NO_ROLES: its description must end with "Read by: <roles>."');
    expect(() => renderConfigurationDoc(envSections, [{ names: ["X_<chainId>"], section: "Nowhere", description: "x. Read by: api." }])).toThrow("X_<chainId>");
  });

  test("each secret's entry names the one role config/roles.ts lets read it, and no other role", () => {
    for (const [name, reader] of Object.entries(SECRET_READERS)) {
      const readBy = /read by: (.*)\n/.exec(entryOf(rendered, `\`${name}\``))?.[1] ?? "";
      const roles = ROLES.filter((role) => new RegExp(`\\b${role}\\b`).test(readBy));
      expect({ name, roles }).toEqual({ name, roles: [reader] });
    }
  });
});
