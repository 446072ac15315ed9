import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address } from "viem";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { commands } from "../../scripts/cli/commands.ts";
import { setIndexedBlock } from "../../harness/fixtures.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * `npm run cli -- replay`: a transfer the indexer missed — sent while it was stopped,
 * its cursor then moved past that block — is found by replaying the range; the payment
 * completes exactly once, and a second replay changes nothing.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
const logger = createLogger({ level: "silent" });
const run = (flags: Record<string, string | boolean>) => commands.replay!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, flags);

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 3, finalityBlocks: 3 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

test("a transfer the indexer missed is found by replay; the payment completes once; replaying again changes nothing", async () => {
  // The indexer runs, then stops: the deposit is created while it ran.
  const indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  const created = await api.request("/api/v1/deposits/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "4", currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  const { id, depositAddress } = created.body.payment as { id: string; depositAddress: Address };
  await indexer.stop();

  // Paid while the indexer was down; then its cursor moved on past that block without reading it.
  const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [depositAddress, 4_000_000n], account: customer, chain: null });
  const paidIn = (await chain.publicClient.waitForTransactionReceipt({ hash })).blockNumber;
  await chain.mine(5);
  const head = await chain.publicClient.getBlockNumber();
  await setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "anvil", chainId: 31337 }, head);
  await reconcilePayments(api.db, api.config, [id]);
  const status = async () => (await api.request(`/api/v1/payments/${id}/status`, { headers: { "x-public-key": merchant.publicKey } })).body.payment;
  expect(await status()).toMatchObject({ status: "pending", amountReceived: "0" });

  // A dry run finds it and records nothing.
  const dry = await run({ network: "anvil", from: "0", to: String(head), "dry-run": true });
  expect(dry).toContain("evidence found: 1, new: 1, already known: 0");
  expect(dry).toContain(id);
  expect(await status()).toMatchObject({ status: "pending", amountReceived: "0" });

  const first = await run({ network: "anvil", from: "0", to: String(head) });
  expect(first).toContain("evidence found: 1, new: 1, already known: 0");
  expect(first).toContain(`${id}: pending → completed`);
  expect(await status()).toMatchObject({ status: "completed", amountReceived: "4", transactionHash: hash });
  const [row] = await queryRows<{ block_number: string; amount: string }>(api.db, sql`select block_number::text, amount::text from replayed_token_transfer`);
  expect(row).toEqual({ block_number: paidIn.toString(), amount: "4000000" });

  const second = await run({ network: "anvil", from: "0", to: String(head) });
  expect(second).toContain("evidence found: 1, new: 0, already known: 1");
  expect(second).toContain("payments whose state changed: 0");
  const [events] = await queryRows<{ n: number }>(api.db, sql`select count(*)::int as n from payment_events where payment_id = ${id} and type = 'payment.completed'`);
  expect(events!.n).toBe(1);
  expect(await status()).toMatchObject({ status: "completed", amountReceived: "4" });
}, 120_000);

test("blocks that are not final are left to the indexer; bad flags are usage errors", async () => {
  const head = await chain.publicClient.getBlockNumber();
  // Part of the range is final (finality 3: the final head is head − 2): that part is read, the rest named.
  const out = await run({ network: "anvil", from: String(head - 5n), to: String(head + 100n) });
  expect(out).toMatch(/blocks after \d+ are not final yet/);
  expect(out).toStartWith(`replayed Anvil blocks ${head - 5n}–${head - 2n} (blocks after ${head - 2n} are not final yet: the indexer follows them; all final in about `);
  await expect(run({ network: "nowhere", from: "0", to: "1" })).rejects.toThrow(/--network: unknown network "nowhere"/);
  await expect(run({ network: "anvil", from: "5", to: "1" })).rejects.toThrow("--to must not be below --from");
  await expect(run({ network: "anvil", from: "x", to: "1" })).rejects.toThrow("--from must be a block (or slot) number");
  await expect(run({ network: "anvil", to: "1" })).rejects.toThrow("--from is required");
});

// BUG: a range beyond the final head printed "replayed … blocks 189–175", a range backwards, and
// "evidence found: 0", and exited 0: a script could not tell that nothing had been read.
test("`npm run cli -- replay` on a range none of which is final: says so, with the final head and when it will be, and exits 1", async () => {
  const head = await chain.publicClient.getBlockNumber();
  const from = head + 1n;
  const to = head + 50n;
  const cli = spawnSync(process.execPath, [resolve(import.meta.dir, "../../scripts/cli.ts"), "replay", "--network", "anvil", "--from", String(from), "--to", String(to)], {
    encoding: "utf8",
    env: { ...process.env, APP_ENV: "test", DATABASE_URL: api.databaseUrl, NETWORKS_FILE: chain.networksFile, LOG_LEVEL: "silent" },
  });
  const final = head - 2n;
  expect(cli.status).toBe(1);
  expect(cli.stdout).toBe("");
  expect(cli.stderr.trim()).toMatch(
    new RegExp(
      `^Nothing replayed: none of Anvil blocks ${from}–${to} is final yet \\(the final head is ${final}\\); the indexer follows them; all final in about \\d+ (s|min|h|days): ${to - final} blocks more at ~\\d+(\\.\\d+)? s each\\.$`,
    ),
  );
});
