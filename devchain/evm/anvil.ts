import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Hex } from "viem";
import { freePort } from "../freePort.ts";

/** Anvil's default mnemonic (public, for local chains only). */
export const anvilMnemonic = "test test test test test test test test test test test junk";

/**
 * Private keys of the first 10 accounts of `anvilMnemonic` (m/44'/60'/0'/0/i), each funded
 * with 10 000 ETH by a default anvil. Hard-coded because deriving them costs a PBKDF2 run
 * per account; `test/anvil.test.ts` checks them against viem's derivation.
 */
export const anvilAccounts = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
] as const satisfies readonly Hex[];

export type StartAnvilParameters = {
  chainId: number;
  /** Fixed port; when omitted a free one is picked (and re-picked if another process wins it). */
  port?: number;
  /** Seconds between blocks; when omitted anvil mines one block per transaction. */
  blockTime?: number;
  /** Defaults to `anvilMnemonic`. */
  mnemonic?: string;
};

export type AnvilInstance = {
  chainId: number;
  port: number;
  rpcUrl: string;
  wsUrl: string;
  /** Kills anvil and resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>;
};

export class AnvilStartError extends Error {
  override name = "AnvilStartError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const startTimeoutMs = 20_000;
const stopTimeoutMs = 5_000;
const maxPortAttempts = 5;

/**
 * Starts a local anvil node on 127.0.0.1 and resolves once it answers `eth_chainId`.
 * Callers must `stop()` it (tests: in `afterAll`); it is also killed if this process exits.
 */
export async function startAnvil(parameters: StartAnvilParameters): Promise<AnvilInstance> {
  const attempts = parameters.port === undefined ? maxPortAttempts : 1;
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = parameters.port ?? (await freePort());
    try {
      return await startAnvilOnPort(parameters, port);
    } catch (error) {
      // A free port can be taken between probing and anvil binding it; only that is retried.
      if (!(error instanceof AnvilStartError && /address (already )?in use/i.test(error.message))) throw error;
      lastError = error;
    }
  }
  throw lastError;
}

async function startAnvilOnPort(parameters: StartAnvilParameters, port: number): Promise<AnvilInstance> {
  const { chainId, blockTime, mnemonic = anvilMnemonic } = parameters;
  const args = ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(chainId), "--mnemonic", mnemonic];
  if (blockTime !== undefined) args.push("--block-time", String(blockTime));

  // stdout (a line per RPC call) is discarded so a full pipe can never stall anvil.
  const child = spawn(anvilBinaryPath(), args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
  });

  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const rpcUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off("exit", killOnExit);
    await killAndWait(child, exited);
  };

  try {
    await waitUntilReady({ child, exited, rpcUrl, chainId, stderr: () => stderr });
  } catch (error) {
    await stop();
    throw error;
  }
  return { chainId, port, rpcUrl, wsUrl: `ws://127.0.0.1:${port}`, stop };
}

/**
 * The platform binary shipped by `@foundry-rs/anvil` is spawned directly: `node_modules/.bin/anvil`
 * is a Node wrapper whose child would be orphaned if the wrapper were SIGKILLed.
 */
function anvilBinaryPath(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const binary = process.platform === "win32" ? "anvil.exe" : "anvil";
  // Resolved like any dependency: the package's own node_modules, or the workspace's hoisted one.
  const require = createRequire(import.meta.url);
  const packageDir = (name: string) => {
    try {
      return dirname(require.resolve(`${name}/package.json`));
    } catch {
      return null;
    }
  };
  const nativeDir = packageDir(`@foundry-rs/anvil-${process.platform}-${arch}`);
  const native = nativeDir && join(nativeDir, "bin", binary);
  if (native && existsSync(native)) return native;
  const wrapperDir = packageDir("@foundry-rs/anvil");
  const wrapper = wrapperDir && join(wrapperDir, "bin.mjs");
  if (wrapper && existsSync(wrapper)) return wrapper;
  throw new AnvilStartError(`anvil not found (@foundry-rs/anvil-${process.platform}-${arch} or @foundry-rs/anvil); run npm install`);
}

async function waitUntilReady(options: {
  child: ChildProcess;
  exited: Promise<void>;
  rpcUrl: string;
  chainId: number;
  stderr: () => string;
}): Promise<void> {
  const { child, exited, rpcUrl, chainId, stderr } = options;
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once("error", (error) => reject(new AnvilStartError(`could not spawn anvil: ${error.message}`, { cause: error }))),
  );
  // Keeps an unhandled rejection from surfacing if the spawn error arrives after we stopped waiting.
  spawnFailed.catch(() => {});

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (hasExited) {
      throw new AnvilStartError(`anvil exited with code ${child.exitCode ?? child.signalCode} before answering on ${rpcUrl}:\n${stderr()}`);
    }
    // Racing `exited` reports a crash at once instead of after the probe's own timeout.
    const answered = await Promise.race([queryChainId(rpcUrl), spawnFailed, exited.then(() => undefined)]);
    if (answered !== undefined) {
      if (answered !== chainId) throw new AnvilStartError(`anvil on ${rpcUrl} reports chain ${answered}, expected ${chainId}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new AnvilStartError(`anvil did not answer eth_chainId on ${rpcUrl} within ${startTimeoutMs} ms:\n${stderr()}`);
}

/** The node's chain id, or undefined while it is not accepting requests yet. */
async function queryChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { result?: string };
    return typeof body.result === "string" ? Number(BigInt(body.result)) : undefined;
  } catch {
    return undefined;
  }
}

async function killAndWait(child: ChildProcess, exited: Promise<void>): Promise<void> {
  // No pid: the spawn itself failed, so there is nothing to kill and "exit" may never fire.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const forceKill = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, stopTimeoutMs);
  });
  await Promise.race([exited, forceKill]);
  clearTimeout(timer);
  await exited;
}
