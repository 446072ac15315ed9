import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildConfig, type Config } from "../../config/index.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { erc20Abi } from "viem";
import { createTransferIngest } from "../../rails/evm/ingest/index.ts";
import { createWatchedAddresses } from "../../rails/evm/ingest/watchedAddresses.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { anvilNetwork } from "../helpers/fixtures.ts";
import { customer, startPaymentChain } from "../helpers/paymentChain.ts";
import { insertPaymentRows, paymentRowFactory } from "../helpers/paymentRows.ts";
import { rewritingRpcProxy } from "../helpers/rewritingRpcProxy.ts";

/**
 * Which deposit addresses the EVM indexer watches in a block, on a real Postgres: judged by
 * the block's time, so a re-index from an old start block (or an indexer far behind) still
 * records what was paid into them while they were open.
 */
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;
const DAY = 86_400_000;
const seconds = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1")] });
  merchantId = (await createMerchant(handle.db, { name: "Watched" })).id;
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

// BUG: the window was judged by the indexer's clock: re-indexing (a new indexer schema reads
// again from START_BLOCK) dropped every transfer into a deposit that had expired a week
// before the re-index, and the payments' evidence with it.
test("a deposit is watched in the blocks from its creation to a week past its expiry, whenever the indexer reads them", async () => {
  const createdAt = new Date(Date.now() - 30 * DAY);
  const expiresAt = new Date(createdAt.getTime() + 30 * 60_000);
  const address = "0x00000000000000000000000000000000000a11ce";
  await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: address, createdAt, expiresAt })]);
  const watched = createWatchedAddresses(database.url, 7 * 24);
  try {
    const at = (ms: number) => watched.of(31337, seconds(new Date(createdAt.getTime() + ms)));
    expect(await at(60_000)).toEqual([address]); // paid a minute after creation, read a month later
    expect(await at(6 * DAY)).toEqual([address]); // late money, inside the week after expiry
    expect(await at(8 * DAY)).toEqual([]); // past it
    expect(await at(-2 * 3_600_000)).toEqual([]); // before the payment existed
  } finally {
    await watched.close();
  }
});

/**
 * A payment's deposit paid on a fresh chain whose node answers through `rewrite`, then the
 * block holding the transfer read by the ingest: what it recorded, and the transfer's hash.
 */
async function ingestThrough(rewrite: Parameters<typeof rewritingRpcProxy>[1], address: `0x${string}`, amount: bigint) {
  const chain = await startPaymentChain();
  const proxy = rewritingRpcProxy(chain.anvil.rpcUrl, rewrite);
  try {
    const proxied = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url }, { extraNetworks: [{ ...chain.network, rpcUrl: proxy.url, wsUrl: undefined }] });
    await insertPaymentRows(handle.db, [paymentRowFactory(proxied)(merchantId, { receiveAddress: address })]);
    const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [address, amount], account: customer, chain: null });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const block = await chain.publicClient.getBlock({ blockHash: receipt.blockHash });
    const ingest = createTransferIngest(proxied);
    try {
      const rows = await ingest.rowsOf(31337, { hash: block.hash, number: block.number, timestamp: block.timestamp });
      return { hash, recorded: rows.map((r) => [r.txHash, r.amount]) };
    } finally {
      await ingest.close();
    }
  } finally {
    proxy.stop();
    await chain.stop();
  }
}

// BUG: the block handler asked for the block's logs by hash and took `[]` as "no transfers";
// a provider backend behind the one that announced the block answers exactly that, and the
// block was checkpointed without the payment's transfer (and its time vouched for by expiry).
test("a node that does not know the block yet is asked again, not believed: the transfer is recorded", async () => {
  let lagging = 3;
  const { hash, recorded } = await ingestThrough(
    (call, answer) => {
      if (lagging <= 0) return answer;
      if (call.method === "eth_getBlockByHash") {
        lagging--;
        return { ...answer, result: null };
      }
      return call.method === "eth_getLogs" ? { ...answer, result: [] } : answer;
    },
    "0x00000000000000000000000000000000000b0b00",
    2_000_000n,
  );
  expect(recorded).toEqual([[hash, 2_000_000n]]);
  expect(lagging).toBe(0); // every lagging answer was asked for, and none was believed
}, 60_000);

// BUG: only "the node does not know the block" was asked again: one 429, timeout or 5xx (or
// geth's "unknown block" error) on a block's logs ended Ponder, which then restarted, waited out
// its lock and read its unfinalised blocks again, every EVM chain held meanwhile.
test("a block's read that fails (rate limited, unknown block) is asked again: the transfer is recorded", async () => {
  const errors = [
    { code: -32005, message: "rate limit exceeded" },
    { code: -32000, message: "unknown block" },
  ];
  const { hash, recorded } = await ingestThrough(
    (call, answer) => (call.method !== "eth_getLogs" || errors.length === 0 ? answer : ({ id: answer.id, jsonrpc: "2.0", error: errors.shift() } as unknown as typeof answer)),
    "0x00000000000000000000000000000000000b0b01",
    3_000_000n,
  );
  expect(recorded).toEqual([[hash, 3_000_000n]]);
  expect(errors).toHaveLength(0); // both failures were answered, neither ended the read
}, 60_000);
