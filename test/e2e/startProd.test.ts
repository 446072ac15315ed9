import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { projectRoot } from "../../config/projectRoot.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { roleStack } from "../../harness/roleStack.ts";

/**
 * `npm run start:prod` on an EVM-only deployment: it bundles the roles, starts the ones
 * the configuration needs from the bundle (no Solana subscriber without a Solana network:
 * it would exit and take the stack down with it), the API answers, and SIGTERM stops it.
 */
let stack: Awaited<ReturnType<typeof roleStack>>;
let prod: ChildProcess;
let output = "";
let baseUrl: string;

beforeAll(async () => {
  stack = await roleStack({ roleScript: "scripts/role.ts" });
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const ports = { PORT: port, INDEXER_PORT: await freePort(), WORKER_METRICS_PORT: await freePort(), INDEXER_METRICS_PORT: await freePort(), SOLANA_METRICS_PORT: await freePort() };
  prod = spawn(process.execPath, ["scripts/start.ts", "--prod"], {
    cwd: projectRoot,
    env: { ...process.env, ...stack.env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), PUBLIC_BASE_URL: baseUrl, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a failed test still takes down every role it started.
    detached: true,
  });
  prod.stdout!.on("data", (d) => (output += d));
  prod.stderr!.on("data", (d) => (output += d));
}, 60_000);

afterAll(async () => {
  if (prod.exitCode === null) {
    try {
      process.kill(-prod.pid!, "SIGKILL");
    } catch {}
  }
  await stack.close();
});

test("start:prod runs the bundled roles the configuration needs, serves the API, and stops on SIGTERM", async () => {
  const deadline = Date.now() + 90_000;
  while (!output.includes("Stablecoin payments API:")) {
    if (prod.exitCode !== null || Date.now() > deadline) throw new Error(`start:prod did not come up (exit ${prod.exitCode}):\n${output.slice(-4000)}`);
    await Bun.sleep(200);
  }
  const merchant = await stack.seedMerchant();
  const created = await fetch(`${baseUrl}/api/v1/payments/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-public-key": merchant.publicKey },
    body: JSON.stringify({ amount: "3", currency: "USDC", network: "anvil", orderId: "prod-1" }),
  });
  expect(created.status).toBe(201);
  const { payment } = (await created.json()) as { payment: { id: string } };
  expect((await fetch(`${baseUrl}/api/v1/payments/${payment.id}/status`, { headers: { "x-public-key": merchant.publicKey } })).status).toBe(200);

  // Every role it started is still up a while later (a role that exits stops the stack).
  await Bun.sleep(3_000);
  expect(prod.exitCode).toBeNull();
  expect(output).not.toContain("exited unexpectedly");

  const exited = new Promise<number | null>((resolve) => prod.once("exit", (code) => resolve(code)));
  process.kill(prod.pid!, "SIGTERM");
  expect(await Promise.race([exited, Bun.sleep(30_000).then(() => "timeout")])).toBe(0);
}, 150_000);
