import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { freePort } from "@stablepay/devchain/freePort";
import { localChain } from "@stablepay/devchain/evm";

/**
 * The headline flow of the foundation: `npm start` with no configuration gives a
 * running sandbox whose dev-stack.json a script can use, the indexer follows the
 * local chains, and Ctrl-C stops every process.
 */
const root = resolve(import.meta.dir, "../..");
const dataDir = mkdtempSync(join(tmpdir(), "stablepay-devstack-"));
// Embedded PostgreSQL runs as the `postgres` user when we are root: it must reach the folder.
chmodSync(dataDir, 0o755);
let stack: ChildProcess;
let output = "";
let port: number;

const until = async <T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> => {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    await Bun.sleep(250);
  }
  throw new Error(`timed out waiting for ${what}\n--- stack output ---\n${output.slice(-4000)}`);
};

beforeAll(async () => {
  port = await freePort();
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    INDEXER_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    QUEUE_PREFIX: `e2e_${Date.now()}`,
    LOG_LEVEL: "warn",
  };
  delete env.DATABASE_URL; // the no-configuration path: embedded PostgreSQL
  delete env.APP_ENV;
  // Its own process group, so a failed test can still take down every child it started.
  stack = spawn(process.execPath, ["scripts/start.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  stack.stdout!.on("data", (d) => (output += d));
  stack.stderr!.on("data", (d) => (output += d));
}, 120_000);

afterAll(async () => {
  if (stack.exitCode === null) {
    process.kill(-stack.pid!, "SIGINT");
    await Bun.sleep(5_000);
    try {
      process.kill(-stack.pid!, "SIGKILL");
    } catch {}
  }
  rmSync(dataDir, { recursive: true, force: true });
});

test("npm start runs a sandbox that a script can drive, then stops cleanly on Ctrl-C", async () => {
  const file = join(dataDir, "dev-stack.json");
  const devStack = await until("dev-stack.json", async () => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined), 120_000);

  expect(devStack.baseUrl).toBe(`http://127.0.0.1:${port}`);
  expect(devStack.publicKey).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
  expect(devStack.apiKey).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
  expect(typeof devStack.apiSecret).toBe("string");
  expect(devStack.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  // The dashboard's sandbox login, printed and written beside the keys, signs in.
  expect([devStack.dashboard.url, devStack.dashboard.email]).toEqual([`http://127.0.0.1:${port}/dashboard`, "owner@sandbox.local"]);
  expect(output).toContain(`Dashboard:   ${devStack.dashboard.url}   (sign in as owner@sandbox.local / ${devStack.dashboard.password})`);
  const signIn = await fetch(`${devStack.dashboard.url}/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: devStack.baseUrl, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: devStack.dashboard.email, password: devStack.dashboard.password }),
  });
  expect([signIn.status, signIn.headers.get("location")]).toEqual([303, "/dashboard/payments"]);
  expect(devStack.chains.map((c: { chainId: number | string }) => c.chainId).slice(0, 2)).toEqual([31337, 31338]);
  const solanaChain = devStack.chains[2];
  // Checked field by field (asymmetric matchers inside toMatchObject overwrite the object under bun).
  expect([solanaChain.shortName, solanaChain.type]).toEqual(["solana-local", "solana"]);
  expect(solanaChain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(solanaChain.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
  expect(typeof solanaChain.chainId).toBe("string");
  expect(solanaChain.tokens.map((t: Record<string, unknown>) => [t.symbol, t.decimals, t.tokenProgram, t.mint === t.address])).toEqual([["USDC", 6, "spl-token", true]]);
  for (const chain of devStack.chains.slice(0, 2)) {
    expect(chain.tokens.map((t: { symbol: string; decimals: number }) => [t.symbol, t.decimals])).toEqual([
      ["USDC", 6],
      ["USDT", 6],
      ["DAI", 18],
    ]);
  }
  const customer = privateKeyToAccount(devStack.customerPrivateKey);
  expect(devStack.customerAddress).toBe(customer.address);

  const headers = { "x-public-key": devStack.publicKey };
  const api = (path: string, init: RequestInit = {}) => fetch(`${devStack.baseUrl}${path}`, init).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  // Both local chains become payable once the indexer has caught up.
  const payable = await until("payable networks", async () => {
    const { body } = await api("/api/v1/networks/payable", { headers });
    return body.networks?.length === 3 ? body.networks : undefined;
  });
  expect(payable.map((n: { shortName: string }) => n.shortName).sort()).toEqual(["anvil", "anvil-2", "solana-local"]);

  // Every supported network is listed (mainnets without an RPC here too); the local chains are the payable ones.
  const supported = await api("/api/v1/networks", { headers });
  expect(supported.body.networks.filter((n: { isTestnet: boolean }) => !n.isTestnet).map((n: { shortName: string }) => n.shortName)).toEqual(
    ["ethereum", "base", "polygon", "arbitrum", "optimism", "bsc", "solana"],
  );
  expect(supported.body.networks.map((n: { shortName: string }) => n.shortName)).toEqual(expect.arrayContaining(["anvil", "anvil-2"]));

  // One wallet entry per supported network; the sandbox merchant has wallets on the local chains.
  const wallets = await api("/api/v1/merchants/wallets", { headers });
  expect(wallets.body.wallets).toHaveLength(supported.body.networks.length);
  const configured = wallets.body.wallets.filter((w: { isConfigured: boolean }) => w.isConfigured);
  expect(configured.map((w: { networkShortName: string }) => w.networkShortName)).toEqual(["anvil", "anvil-2", "solana-local"]);
  expect(configured[0].walletAddress).toBe(devStack.merchantWallets.anvil);
  // The callbackUrl signing secret in dev-stack.json is the one the API serves (and signs with).
  const webhookSecret = await api("/api/v1/webhook-secret", { headers: { "x-api-key": devStack.apiKey, "x-api-secret": devStack.apiSecret } });
  expect(webhookSecret.body.secret).toBe(devStack.webhookSecret);

  // The funded customer really holds test USDC, and a transfer to a deposit address is indexed
  // into the views schema (the indexer records transfers into watched addresses only).
  const chain = devStack.chains[0];
  const usdc = chain.tokens[0].address;
  const viemChain = localChain(chain.chainId, chain.rpcUrl);
  const publicClient = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl) });
  expect(await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [customer.address] })).toBe(
    parseUnits("1000000", 6),
  );
  const watchedDeposit = await api("/api/v1/deposits/create", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ amount: "12.345678", currency: "USDC", network: "anvil" }),
  });
  expect(watchedDeposit.status).toBe(201);
  const wallet = createWalletClient({ account: customer, chain: viemChain, transport: http(chain.rpcUrl) });
  const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [watchedDeposit.body.payment.depositAddress, 12_345_678n] });
  await publicClient.waitForTransactionReceipt({ hash });

  const db = new pg.Client({ connectionString: devStack.databaseUrl });
  await db.connect();
  try {
    const row = await until("indexed transfer", async () => {
      const r = await db.query(`select amount::text as amount, "to", chain_id from onchain.token_transfer where tx_hash = $1`, [hash]);
      return r.rows[0];
    }, 30_000);
    expect(row).toEqual({ amount: "12345678", to: watchedDeposit.body.payment.depositAddress.toLowerCase(), chain_id: 31337 });
  } finally {
    await db.end();
  }

  // Fiat pricing works out of the box: the sandbox ships a sample rate table.
  const rates = await api("/api/v1/currency/rates");
  expect(rates.body).toMatchObject({ success: true, base: "USD", source: "static" });
  expect(rates.body.rates.NGN).toBe("1550");
  const naira = await api("/api/v1/payments/create", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ amount: "15500", currency: "NGN", token: "USDC", network: "anvil", orderId: "sandbox-naira" }),
  });
  expect(naira.status).toBe(201);
  expect(naira.body.payment).toMatchObject({ amount: "10", currency: "USDC", fiatAmount: "15500", fiatCurrency: "NGN", exchangeRate: "1550" });

  // The tutorial: pay on anvil-2, settle on anvil, through the sandbox's local bridge.
  expect(devStack.bridge).toMatchObject({ adapter: "local", feeBps: 10 });
  const sources = await api("/api/v1/payments/cross-chain/sources");
  expect(sources.body.sources.map((c: { shortName: string }) => c.shortName)).toEqual(["anvil", "anvil-2"]);
  const crossChain = await until("a cross-chain payment (the relayer sets up at start)", async () => {
    const created = await api("/api/v1/payments/cross-chain/create", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ amount: "5", originChainId: 31338, originCurrency: "USDC", orderId: "sandbox-cross-chain" }),
    });
    return created.status === 201 ? created.body.payment : undefined;
  });
  expect(crossChain.destination).toEqual({ network: "anvil", currency: "USDC", amount: "5" });
  const origin = devStack.chains[1];
  const originChain = localChain(origin.chainId, origin.rpcUrl);
  const originClient = createPublicClient({ chain: originChain, transport: http(origin.rpcUrl) });
  const originWallet = createWalletClient({ account: customer, chain: originChain, transport: http(origin.rpcUrl) });
  const merchantBefore = await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [devStack.merchantWallets.anvil] });
  const deposit = await originWallet.writeContract({
    address: origin.tokens[0].address,
    abi: erc20Abi,
    functionName: "transfer",
    args: [crossChain.relayDepositAddress, BigInt(crossChain.amountToSend)],
  });
  await originClient.waitForTransactionReceipt({ hash: deposit });
  const settled = await until("the cross-chain payment to complete", async () => {
    const { body } = await api(`/api/v1/payments/cross-chain/status/${crossChain.id}`, { headers });
    return body.payment?.status === "completed" ? body.payment : undefined;
  }, 60_000);
  expect(settled).toMatchObject({ bridgeStatus: "completed", amountReceived: "5", bridge: { origin: { depositTxHashes: [deposit] } } });
  expect(await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [devStack.merchantWallets.anvil] })).toBe(merchantBefore + 5_000_000n);

  const health = await api("/api/v1/payments/health");
  expect(health.body.chains.map((c: { network: string; rpcReachable: boolean }) => [c.network, c.rpcReachable])).toEqual([
    ["anvil", true],
    ["anvil-2", true],
    ["solana-local", true],
  ]);

  // The local Solana chain: the funded customer pays a deposit address through an unmodified
  // web3.js Connection, and the subscriber, reconciliation and the sweep do the rest.
  const { Connection, Keypair, PublicKey } = await import("@solana/web3.js");
  const { getBase58Codec } = await import("@solana/kit");
  const { getAssociatedTokenAddressSync, transferChecked, createAssociatedTokenAccountIdempotent } = await import("@solana/spl-token");
  const solanaCustomer = Keypair.fromSecretKey(new Uint8Array(getBase58Codec().encode(devStack.customerSolanaSecretKey)));
  expect(devStack.customerSolanaAddress).toBe(solanaCustomer.publicKey.toBase58());
  const connection = new Connection(solanaChain.rpcUrl, "confirmed");
  const mint = new PublicKey(solanaChain.tokens[0].mint);
  const customerAta = getAssociatedTokenAddressSync(mint, solanaCustomer.publicKey);
  expect((await connection.getTokenAccountBalance(customerAta)).value.uiAmountString).toBe("1000000");
  const solanaDeposit = await api("/api/v1/deposits/create", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ amount: "2.5", currency: "USDC", network: "solana-local", orderId: "sandbox-solana" }),
  });
  expect(solanaDeposit.status).toBe(201);
  const depositAta = await createAssociatedTokenAccountIdempotent(connection, solanaCustomer, mint, new PublicKey(solanaDeposit.body.payment.depositAddress), { commitment: "confirmed" }, undefined, undefined, true);
  await transferChecked(connection, solanaCustomer, customerAta, mint, depositAta, solanaCustomer, 2_500_000n, 6, [], { commitment: "confirmed" });
  const swept = await until("the Solana deposit completed and swept", async () => {
    const { body } = await api(`/api/v1/deposits/status/${solanaDeposit.body.payment.id}`, { headers });
    return body.payment?.status === "completed" && body.payment.sweeps?.[0]?.status === "confirmed" ? body.payment : undefined;
  }, 60_000);
  expect(swept).toMatchObject({ amountReceived: "2.5", excessOwed: "0" });
  const merchantAta = getAssociatedTokenAddressSync(mint, new PublicKey(devStack.merchantWallets["solana-local"]));
  expect((await connection.getTokenAccountBalance(merchantAta)).value.amount).toBe("2500000");

  // The hosted checkout page is served, and a live stream left open does not hold up Ctrl-C.
  const checkoutUrl = naira.body.payment.checkoutUrl;
  expect(checkoutUrl).toBe(`${devStack.baseUrl}/pay/${naira.body.payment.id}`);
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Waiting for your payment");
  const stream = await fetch(`${devStack.baseUrl}/api/v1/payments/public/${naira.body.payment.id}/events`);
  expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const reader = stream.body!.getReader();
  await reader.read();

  // Ctrl-C: every child stops, the API and the chains go away.
  const exited = new Promise<number | null>((r) => stack.once("exit", (code) => r(code)));
  stack.kill("SIGINT");
  const streamEnded = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {}
    return true;
  })();
  expect(await exited).toBe(0);
  expect(await streamEnded).toBe(true);
  await expect(fetch(`${devStack.baseUrl}/api/health`)).rejects.toThrow();
  await expect(fetch(chain.rpcUrl, { method: "POST", body: "{}" })).rejects.toThrow();
}, 240_000);
