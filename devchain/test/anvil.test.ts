import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { bytesToHex, createPublicClient, http, parseEther } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, anvilMnemonic, AnvilStartError, localChain, startAnvil } from "../evm/index.ts";

describe("anvilAccounts", () => {
  test("are the first 10 keys of the default mnemonic", () => {
    expect(anvilAccounts[0]).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    const derived = anvilAccounts.map((_, addressIndex) => {
      const privateKey = mnemonicToAccount(anvilMnemonic, { addressIndex }).getHdKey().privateKey;
      return privateKey ? bytesToHex(privateKey) : undefined;
    });
    expect(derived).toEqual([...anvilAccounts]);
  });
});

describe("startAnvil", () => {
  const instances: AnvilInstance[] = [];
  let anvil: AnvilInstance;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 31_337 });
    instances.push(anvil);
  });

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
  });

  test("serves the requested chain on 127.0.0.1", async () => {
    expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${anvil.port}`);
    expect(anvil.wsUrl).toBe(`ws://127.0.0.1:${anvil.port}`);
    const client = createPublicClient({ chain: localChain(anvil.chainId, anvil.rpcUrl), transport: http() });
    expect(await client.getChainId()).toBe(31_337);
    // Default anvil accounts start with 10 000 ETH each.
    const account9 = privateKeyToAccount(anvilAccounts[9]).address;
    expect(await client.getBalance({ address: account9 })).toBe(parseEther("10000"));
  });

  test("runs two chains side by side on different ports", async () => {
    const other = await startAnvil({ chainId: 8_453 });
    instances.push(other);
    expect(other.port).not.toBe(anvil.port);
    const client = createPublicClient({ transport: http(other.rpcUrl) });
    expect(await client.getChainId()).toBe(8_453);
  });

  test("starts several nodes at once, each on its own port", async () => {
    const started = await Promise.all([1, 2, 3, 4].map((i) => startAnvil({ chainId: 900 + i })));
    instances.push(...started);
    expect(new Set(started.map((s) => s.port)).size).toBe(4);
    const chainIds = await Promise.all(started.map((s) => createPublicClient({ transport: http(s.rpcUrl) }).getChainId()));
    expect(chainIds).toEqual([901, 902, 903, 904]);
  });

  test("stop() ends the node and can be called twice", async () => {
    const temporary = await startAnvil({ chainId: 1_337 });
    instances.push(temporary);
    await temporary.stop();
    await temporary.stop();
    const client = createPublicClient({ transport: http(temporary.rpcUrl, { retryCount: 0 }) });
    await expect(client.getChainId()).rejects.toThrow();
  });

  test("mines on a timer when blockTime is set", async () => {
    const timed = await startAnvil({ chainId: 1_338, blockTime: 1 });
    instances.push(timed);
    // cacheTime 0: viem otherwise caches the block number for one polling interval.
    const client = createPublicClient({ transport: http(timed.rpcUrl), cacheTime: 0 });
    const start = await client.getBlockNumber();
    await Bun.sleep(2_200);
    expect(await client.getBlockNumber()).toBeGreaterThanOrEqual(start + 2n);
  });

  test("a taken fixed port fails with anvil's stderr", async () => {
    // Dropping connections at once keeps anvil's readiness probe from hanging on the blocker.
    const blocker = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const error = await startAnvil({ chainId: 31_337, port }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AnvilStartError);
      expect(String(error)).toContain("Address already in use");
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
