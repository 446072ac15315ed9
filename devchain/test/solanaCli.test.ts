import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";

// The standalone server as a user runs it: `bun solana/cli.ts` from the package folder.
const packageDir = join(import.meta.dir, "..");
const started: Bun.Subprocess[] = [];
afterAll(() => started.forEach((p) => p.kill()));

const run = (args: string[]) => {
  const proc = Bun.spawn([process.execPath, "solana/cli.ts", ...args], { cwd: packageDir, stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  return proc;
};

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the server ended before printing a line: ${JSON.stringify(text)}`);
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text.slice(0, text.indexOf("\n"));
}

async function rpc(url: string, method: string, params: unknown[] = []) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await response.json()) as { result: unknown }).result;
}

describe("bun solana/cli.ts", () => {
  test("serves JSON-RPC, prints where, airdrops what it was asked to, and stops on SIGTERM", async () => {
    const recipient = Keypair.generate().publicKey.toBase58();
    const proc = run(["--slot-ms", "0", "--finality-depth", "2", "--airdrop", recipient]);
    const printed = JSON.parse(await firstLine(proc.stdout)) as { rpcUrl: string; wsUrl: string; genesisHash: string };
    expect(printed.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(printed.wsUrl).port)).toBe(Number(new URL(printed.rpcUrl).port) + 1);
    expect(await rpc(printed.rpcUrl, "getGenesisHash")).toBe(printed.genesisHash);
    const balance = (await rpc(printed.rpcUrl, "getBalance", [recipient, { commitment: "processed" }])) as { value: number };
    expect(balance.value).toBe(10 * LAMPORTS_PER_SOL);
    // slot-ms 0: no slot is produced on its own.
    expect(await rpc(printed.rpcUrl, "getSlot", [{ commitment: "processed" }])).toBe(await rpc(printed.rpcUrl, "getSlot", [{ commitment: "processed" }]));
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  });

  test.each([
    [["--slot-ms", "fast"], '--slot-ms must be a whole number of at least 0, got "fast"'],
    [["--finality-depth", "0"], '--finality-depth must be a whole number of at least 1, got "0"'],
    [["--port", "65535"], "--port must leave room for PubSub on port + 1"],
    [["--airdrop", "not-an-address"], '--airdrop must be a base58 Solana address, got "not-an-address"'],
    [["--slots", "1"], "--slots"],
  ])("%p is refused with a message naming the flag, before anything starts", async (args, message) => {
    const proc = run(args);
    expect(await proc.exited).toBe(2);
    const stderr = await new Response(proc.stderr).text();
    expect(stderr).toContain(message);
    expect(stderr).toContain("Usage: bun solana/cli.ts");
    expect(await new Response(proc.stdout).text()).toBe("");
  });
});
