import { expect, test } from "bun:test";
import { spawnSync } from "bun";

const ROOT = new URL("../..", import.meta.url).pathname;

/** Loads `modules` in a fresh Bun process, runs `then`, and lists the Solana library files it loaded. */
function solanaModulesLoaded(modules: string[], then = ""): string[] {
  const script = `${modules.map((m) => `await import(${JSON.stringify(`${ROOT}${m}`)});`).join("\n")}
${then}
console.log(JSON.stringify(Object.keys(require.cache).filter((k) => /node_modules\\/(@solana|helius-sdk)\\//.test(k))));`;
  const run = spawnSync(["bun", "-e", script], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString().trim().split("\n").at(-1)!) as string[];
}

// ~18 MB per process: an EVM-only deployment's API and workers never load them.
test("the API, the workers and configuration load no Solana library until a Solana method runs", () => {
  expect(solanaModulesLoaded(["config/index.ts", "api/server.ts", "jobs/worker.ts", "rails/index.ts"])).toEqual([]);
});

test("a Solana rail method loads them on its first call", () => {
  const loaded = solanaModulesLoaded(
    ["rails/solana/index.ts"],
    `const { solanaPay } = await import(${JSON.stringify(`${ROOT}rails/solana/index.ts`)});
const c = solanaPay.contract({ chainId: 900, shortName: "sol", type: "solana", tokens: [] });
if (c.contractAddress !== null) throw new Error("unexpected contract description");`,
  );
  expect(loaded.some((k) => k.includes("@solana/spl-token"))).toBe(true);
});
