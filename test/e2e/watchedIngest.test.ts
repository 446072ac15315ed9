import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilAccounts, createTransferGenerator, testStablecoinAbi } from "@stablepay/devchain/evm";
import { startWorkers } from "../../jobs/worker.ts";
import { customerKey, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * The EVM indexer records transfers into watched addresses only, under mainnet-shaped
 * load: every block carries 300 transfers between addresses the service does not know.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
let generator: ReturnType<typeof createTransferGenerator>;
const customer = privateKeyToAccount(customerKey);
/** The indexer's late-money scan covers this many blocks at a time. */
const LATE_SCAN_BLOCKS = 8;
let customerNonce = 0;

beforeAll(async () => {
  // Final only 32 blocks deep: the last test reorgs 10 blocks, and money in a final block is
  // never looked at again (a reorg deeper than finality is outside what the service answers for).
  chain = await startPaymentChain({ requiredConfirmations: 3, finalityBlocks: 32 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  generator = createTransferGenerator({ chainId: 31337, token: usdc, senderKeys: anvilAccounts.slice(3, 6) as Hex[], send: (raw) => chain.rpc("eth_sendRawTransaction", [raw]) });
  const operator = privateKeyToAccount(operatorKey);
  for (const sender of generator.senders) {
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: testStablecoinAbi, functionName: "mint", args: [sender, 10n ** 15n], account: operator, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
  }
  generator.setNonces(await Promise.all(generator.senders.map((address) => chain.publicClient.getTransactionCount({ address }))));
  customerNonce = await chain.publicClient.getTransactionCount({ address: customer.address });
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile, { INDEXER_LATE_SCAN_BLOCKS: String(LATE_SCAN_BLOCKS) });
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl, transfers: false });
  // From here blocks are mined by the test, each holding exactly what it sent.
  await chain.rpc("evm_setAutomine", [false]);
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

async function createDeposit(orderId: string): Promise<{ id: string; depositAddress: Address }> {
  const response = await api.request("/api/v1/deposits/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "1", currency: "USDC", network: "anvil", orderId } });
  expect(response.status).toBe(201);
  return response.body.payment;
}

/** A customer transfer, signed here and sent raw (the chain does not mine until told). */
async function pay(to: Address, amount: bigint) {
  const raw = await customer.signTransaction({
    chainId: 31337,
    nonce: customerNonce++,
    to: usdc,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] }),
    gas: 80_000n,
    maxFeePerGas: 50_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  return chain.rpc<Hex>("eth_sendRawTransaction", [raw]);
}

const indexedRows = () => queryRows<{ to: string; n: string }>(api.db, sql`select "to", count(*)::text as n from onchain.token_transfer group by "to"`);

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe("watched-address ingest under 300 unrelated transfers per block", () => {
  test("500 deposits, each created and paid in the next block: every one credited exactly once, no unrelated transfer stored", async () => {
    const BLOCKS = 50;
    const PER_BLOCK = 10;
    const deposits: Array<{ id: string; depositAddress: Address }> = [];
    for (let b = 0; b < BLOCKS; b++) {
      const created = await Promise.all(Array.from({ length: PER_BLOCK }, (_, i) => createDeposit(`watched-${b}-${i}`)));
      deposits.push(...created);
      // This block: the new payments' transfers among 300 unrelated ones.
      await generator.send(300);
      for (const d of created) await pay(d.depositAddress, 1_000_000n);
      await chain.mine(1);
    }
    await chain.mine(3); // the confirmations the network requires

    const ids = deposits.map((d) => d.id);
    await until("all 500 deposits to complete", async () => {
      const [row] = await queryRows<{ n: string }>(api.db, sql`select count(*)::text as n from payments where id = any(${sql.param(ids)}::uuid[]) and status = 'completed'`);
      return Number(row!.n) === deposits.length ? true : undefined;
    }, 120_000);

    // Exactly the amount each: no transfer was credited twice, none was missed.
    const settled = await queryRows<{ amount_received: string; n: string }>(
      api.db,
      sql`select amount_received::text, count(*)::text as n from payments where id = any(${sql.param(ids)}::uuid[]) group by 1`,
    );
    expect(settled).toEqual([{ amount_received: "1000000", n: "500" }]);
    // The indexed store holds one row per deposit and nothing of the 15,000 unrelated transfers.
    const rows = await indexedRows();
    expect(rows).toHaveLength(500);
    expect(new Set(rows.map((r) => r.to))).toEqual(new Set(deposits.map((d) => d.depositAddress.toLowerCase())));
    expect(rows.every((r) => r.n === "1")).toBe(true);
  }, 300_000);

  test("a reorg that removes a watched transfer removes its row, and the payment goes back to pending", async () => {
    const deposit = await createDeposit("watched-reorg");
    const snapshot = await chain.rpc<Hex>("evm_snapshot");
    await generator.send(300);
    await pay(deposit.depositAddress, 1_000_000n);
    await chain.mine(1);
    const status = async () => (await api.request(`/api/v1/payments/${deposit.id}/status`, { headers: { "x-public-key": merchant.publicKey } })).body.payment;
    await until("the transfer to be credited", async () => ((await status()).amountReceived === "1" ? true : undefined));

    await chain.rpc("evm_revert", [snapshot]);
    customerNonce--; // the reverted transaction's nonce is free again
    await chain.mine(2); // a longer chain without it
    await until("the credit to be rolled back", async () => ((await status()).amountReceived === "0" ? true : undefined));
    expect(await status()).toMatchObject({ status: "pending", amountReceived: "0" });
    const rows = await indexedRows();
    expect(rows.some((r) => r.to === deposit.depositAddress.toLowerCase())).toBe(false);
  }, 120_000);

  /** A deposit whose expiry is moved two hours back: money sent to it now is late money, asked for by the late scan only. */
  async function expiredLongAgo(orderId: string) {
    const deposit = await createDeposit(orderId);
    await api.db.execute(sql`update payments set created_at = now() - interval '3 hours', expires_at = now() - interval '2 hours' where id = ${deposit.id}`);
    return deposit;
  }
  const lateAmountOf = async (id: string) => (await queryRows<{ late: string }>(api.db, sql`select late_amount::text as late from payments where id = ${id}`))[0]!.late;
  const rowsInto = async (address: Address) => (await indexedRows()).filter((r) => r.to === address.toLowerCase());

  test("money sent to a deposit that expired two hours before is found by the late scan, recorded once and owed back", async () => {
    const deposit = await expiredLongAgo("watched-late");
    await generator.send(300);
    await pay(deposit.depositAddress, 1_000_000n);
    await chain.mine(1);
    await chain.mine(LATE_SCAN_BLOCKS + 3); // a scan's range holds the block, and its rows the confirmations
    await until("the late transfer to be credited", async () => ((await lateAmountOf(deposit.id)) === "1000000" ? true : undefined));
    expect(await rowsInto(deposit.depositAddress)).toEqual([{ to: deposit.depositAddress.toLowerCase(), n: "1" }]);
    // Scans that come after find it again and write nothing.
    await chain.mine(2 * LATE_SCAN_BLOCKS);
    await Bun.sleep(500);
    expect(await rowsInto(deposit.depositAddress)).toEqual([{ to: deposit.depositAddress.toLowerCase(), n: "1" }]);
  }, 120_000);

  test("a reorg that removes a transfer the late scan found removes its row, and the late money with it", async () => {
    const deposit = await expiredLongAgo("watched-late-reorg");
    const snapshot = await chain.rpc<Hex>("evm_snapshot");
    await pay(deposit.depositAddress, 2_000_000n);
    await chain.mine(LATE_SCAN_BLOCKS + 1);
    await until("the late transfer to be credited", async () => ((await lateAmountOf(deposit.id)) === "2000000" ? true : undefined));

    await chain.rpc("evm_revert", [snapshot]);
    customerNonce--; // the reverted transaction's nonce is free again
    await chain.mine(LATE_SCAN_BLOCKS + 3); // a longer chain without it, scanned again
    // Up to 150 s: when Ponder has read the old fork's head just before the revert, it asks for that
    // block's logs by hash and retries "unknown block" with backoff (~65 s in all) before it syncs the
    // new fork. Seen in about a third of runs since each chain has its own Ponder; the row still goes.
    await until("the late credit to be rolled back", async () => ((await rowsInto(deposit.depositAddress)).length === 0 ? true : undefined), 150_000);
    // The chain goes on producing blocks, as every chain does: a Ponder that restarted in the slow
    // case above calls itself caught up (and the service trusts its absence of evidence) only
    // once it sees a new block.
    let mined = 0;
    await until("the late money to be gone", async () => {
      if (Date.now() - mined > 1_000) {
        mined = Date.now();
        await chain.mine(1);
      }
      return (await lateAmountOf(deposit.id)) === "0" ? true : undefined;
    });
  }, 240_000);
});
