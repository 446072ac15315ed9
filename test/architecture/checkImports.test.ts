import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkImports } from "../../scripts/check-imports.ts";

const root = mkdtempSync(join(tmpdir(), "check-imports-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

test("a product file importing test/ or devchain/, or the dev-only launcher, is reported; the launcher itself may import devchain/", () => {
  write("rails/evm/deploy.ts", `import { localChain } from "../../devchain/evm/localChain.ts";\n`);
  write("api/helper.ts", `// import { x } from "../test/helpers/x.ts" in a comment is no import\nexport type T = typeof import("../test/helpers/x.ts");\n`);
  write("scripts/start.ts", `import { startLocalChains } from "../devchain/startLocalChains.ts";\n`);
  write("jobs/boot.ts", `import "../scripts/start.ts";\n`);
  write("domain/fixture.ts", `import { startPaymentChain } from "../harness/paymentChain.ts";\n`);
  expect(checkImports(root).sort()).toEqual([
    "api/helper.ts imports test/helpers/x.ts: product code never imports test/",
    "domain/fixture.ts imports harness/paymentChain.ts: product code never imports harness/",
    "jobs/boot.ts imports scripts/start.ts, which is dev-only (it starts the sandbox's chains)",
    "rails/evm/deploy.ts imports devchain/evm/localChain.ts: product code never imports devchain/",
  ]);
});

test("the devchain workspace package counts as devchain/: reported from product code, allowed in the sandbox's chains; devchain/ imports nothing outside itself", () => {
  rmSync(root, { recursive: true, force: true });
  write("rails/evm/deploy.ts", `import { localChain } from "@stablepay/devchain/evm";\nimport { parseUnits } from "viem";\n`);
  write("jobs/boot.ts", `export const load = () => import("@stablepay/devchain");\n`);
  write("scripts/lib/sandboxChains.ts", `import { startAnvil } from "@stablepay/devchain/evm";\n`);
  write("rails/solana/sandbox.ts", `import { startSolanaDevChain } from "@stablepay/devchain/solana";\n`);
  write("api/app.ts", `import { x } from "@stablepay/devchainish";\n`);
  write("devchain/evm/deploy.ts", `import type { Token } from "../../config/types.ts";\nimport { freePort } from "../freePort.ts";\nimport { parseUnits } from "viem";\n`);
  expect(checkImports(root).sort()).toEqual([
    "devchain/evm/deploy.ts imports config/types.ts: devchain/ is a package of its own and imports nothing outside it",
    "jobs/boot.ts imports @stablepay/devchain: product code never imports devchain/",
    "rails/evm/deploy.ts imports @stablepay/devchain/evm: product code never imports devchain/",
  ]);
});

test("folders importing each other in a cycle are reported with an import per edge; a one-way import is not", () => {
  rmSync(root, { recursive: true, force: true });
  write("config/index.ts", `import { normalize } from "../rails/addressFormats.ts";\n`);
  write("rails/addressFormats.ts", `import type { Network } from "../config/types.ts";\n`);
  write("db/client.ts", `export const x = 1;\n`);
  write("api/app.ts", `import { x } from "../db/client.ts";\nconst lazy = () => require("../webhooks/post.ts");\n`);
  write("webhooks/post.ts", `export async function load() { return import("../jobs/queues.ts"); }\n`);
  write("jobs/queues.ts", `export { app } from "../api/app.ts";\n`);
  const problems = checkImports(root);
  expect(problems).toHaveLength(2);
  expect(problems).toContainEqual(
    "import cycle between folders config, rails:\n  config → rails  (e.g. config/index.ts imports rails/addressFormats.ts)\n  rails → config  (e.g. rails/addressFormats.ts imports config/types.ts)",
  );
  expect(problems.find((p) => p.includes("api, jobs, webhooks"))).toContain("webhooks → jobs  (e.g. webhooks/post.ts imports jobs/queues.ts)");
});

test("a rail's sandbox (rails/<name>/sandbox.ts) is dev-only: it may import devchain/, and no product file imports it, lazily neither", () => {
  rmSync(root, { recursive: true, force: true });
  write("rails/evm/sandbox.ts", `import { startAnvil } from "@stablepay/devchain/evm";\nimport { deploySettlement } from "./settlement/index.ts";\n`);
  write("rails/evm/settlement/index.ts", `export const deploySettlement = 1;\n`);
  write("rails/evm/plugin.ts", `export const sandbox = () => import("./sandbox.ts");\n`);
  write("rails/evm/sandboxes/helper.ts", `import { startAnvil } from "@stablepay/devchain/evm";\n`);
  expect(checkImports(root).sort()).toEqual([
    "rails/evm/plugin.ts imports rails/evm/sandbox.ts, which is dev-only (it starts the sandbox's chains)",
    "rails/evm/sandboxes/helper.ts imports @stablepay/devchain/evm: product code never imports devchain/",
  ]);
});
