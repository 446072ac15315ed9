import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import pg from "pg";
import { syncAnalytics } from "../../../../db/analyticsSource.ts";
import { type Config } from "../../../../config/index.ts";
import { createLogger } from "../../../../config/logger.ts";
import { createDb, queryRows, type DbHandle } from "../../../../db/client.ts";
import { createMerchant } from "../../../../db/merchants.ts";
import { insertPayments } from "../../../../db/payments.ts";
import { insertReplayed } from "../../../../db/replayedEvidence.ts";
import type { PaymentRow } from "../../../../db/schema/index.ts";
import type { SplitPaymentParams } from "../../../../domain/splitPayment.ts";
import { evmEvidence } from "../../../../rails/evm/index.ts";
import { evidenceQuery } from "../../../../rails/evm/readModel/evidence.ts";
import { splitPaymentCall } from "../../../../rails/evm/settlement/index.ts";
import { createTestDatabase, type TestDatabase } from "../../../../harness/database.ts";
import { ANVIL_USDC, anvilNetwork } from "../../../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedSplit } from "../../../../harness/indexedTables.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../../harness/paymentRows.ts";
import { buildConfig } from "../../../../plugins/config.ts";

/**
 * The client SDK's `splitPayment` as evidence (rails/evm/readModel/evidence.ts): anyone may
 * call it with any params, so an indexed `SplitPaymentExecuted` credits a payment only when
 * its params are exactly the call the service issued for it (stored with the payment), and
 * then for what the recipients received. Read through the EVM rail's `loadCredits`.
 */
const schema = "split_views";
const CONTRACT = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const MERCHANT = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const FEE_WALLET = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const STRANGER = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720";
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;
let block = 100;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: schema },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { settlementContract: CONTRACT })] },
  );
  merchantId = (await createMerchant(handle.db, { name: "Split" })).id;
  await createIndexedTables(handle.db, schema);
});

afterAll(async () => {
  await handle.close();
  await database.drop();
});

/** A contract payment of `amount` USDC units, with the split call the service issues for it (1.75% fee). */
async function contractPayment(amount = 10_000_000n): Promise<PaymentRow & { params: SplitPaymentParams }> {
  const row = paymentRowFactory(config)(merchantId, { amount, contractAddress: CONTRACT, merchantWallet: MERCHANT, feeRecipient: FEE_WALLET });
  const contractCall = splitPaymentCall({ settlementAddress: CONTRACT, paymentId: row.id!, token: ANVIL_USDC, amount, merchantWallet: MERCHANT, feeRecipient: FEE_WALLET, feeBps: 175 });
  // As creation writes it (jsonb as an object: drizzle's own jsonb on Bun's driver stores a JSON string).
  const [inserted] = await insertPayments(handle.db, [{ ...row, contractCall }]);
  return { ...inserted!, params: contractCall.params };
}

/** Indexes a split call with `params` (default: as issued) and returns its transaction hash. */
async function indexed(paymentId: string, params: SplitPaymentParams, over: { received?: bigint; contract?: string; chainId?: number } = {}): Promise<string> {
  const txHash = `0x${(++block).toString(16).padStart(64, "0")}`;
  await insertIndexedSplit(handle.db, schema, {
    chainId: over.chainId ?? 31337, paymentId, payer: STRANGER, params, received: over.received, contract: over.contract ?? CONTRACT, blockNumber: block, txHash, at: new Date(),
  });
  return txHash;
}

const ctx = () => ({ config, db: handle.db, logger: createLogger({ level: "silent" }) });
const creditsOf = async (p: PaymentRow) => (await evmEvidence.loadCredits(ctx(), [p], new Map())).get(p.id)!;

describe("a split payment credits a payment", () => {
  test("when its params are exactly the issued call: for what the recipients received", async () => {
    const p = await contractPayment();
    const tx = await indexed(p.id, p.params);
    expect(await creditsOf(p)).toEqual([expect.objectContaining({ amount: 10_000_000n, txHash: tx, source: "settlement", blockNumber: BigInt(block) })]);
  });

  test("a token that took a fee on the way: the credit is what arrived, not the params' amount", async () => {
    const p = await contractPayment();
    await indexed(p.id, p.params, { received: 9_990_000n });
    expect((await creditsOf(p)).map((c) => c.amount)).toEqual([9_990_000n]);
  });

  test("the same row indexed and replayed counts once", async () => {
    const p = await contractPayment();
    const tx = await indexed(p.id, p.params);
    const at = block;
    await insertReplayed(handle.db, {
      transfers: [],
      settlements: [],
      splits: [{
        id: `31337:${tx}:0`, chainId: 31337, key: `0x${"ab".repeat(32)}`, paymentId: p.id, payer: STRANGER.toLowerCase(), token: ANVIL_USDC.toLowerCase(),
        amount: "10000000", received: "10000000", recipient1: MERCHANT.toLowerCase(), recipient2: FEE_WALLET.toLowerCase(), recipient3: "0x0000000000000000000000000000000000000000",
        recipient1Percentage: 9_825, recipient2Percentage: 175, recipient3Percentage: 0, contract: CONTRACT.toLowerCase(),
        blockNumber: String(at), blockHash: "0xb", txHash: tx, logIndex: 0, timestamp: "0",
      }],
    });
    expect((await creditsOf(p)).length).toBe(1);
  });

  test("a replayed row the indexer missed credits it too", async () => {
    const p = await contractPayment();
    await insertReplayed(handle.db, {
      transfers: [],
      settlements: [],
      splits: [{
        id: `31337:0xmissed:3`, chainId: 31337, key: `0x${"cd".repeat(32)}`, paymentId: p.id, payer: STRANGER.toLowerCase(), token: ANVIL_USDC.toLowerCase(),
        amount: "10000000", received: "10000000", recipient1: MERCHANT.toLowerCase(), recipient2: FEE_WALLET.toLowerCase(), recipient3: "0x0000000000000000000000000000000000000000",
        recipient1Percentage: 9_825, recipient2Percentage: 175, recipient3Percentage: 0, contract: CONTRACT.toLowerCase(),
        blockNumber: "99999", blockHash: "0xb", txHash: "0xmissed", logIndex: 3, timestamp: "0",
      }],
    });
    expect((await creditsOf(p)).map((c) => c.txHash)).toEqual(["0xmissed"]);
  });
});

describe("a split payment credits nothing", () => {
  const other = "0x0000000000000000000000000000000000000bad";
  test.each<[string, (p: SplitPaymentParams) => SplitPaymentParams]>([
    ["naming the stranger as merchant", (p) => ({ ...p, recipient1: STRANGER })],
    ["naming the stranger as fee wallet", (p) => ({ ...p, recipient2: STRANGER })],
    ["adding a third recipient", (p) => ({ ...p, recipient3: STRANGER, recipient1Percentage: 9_725, recipient3Percentage: 100 })],
    ["with other shares (all to the fee wallet)", (p) => ({ ...p, recipient1Percentage: 0, recipient2Percentage: 10_000 })],
    ["of another amount (1 unit)", (p) => ({ ...p, amount: "1" })],
    ["of another amount (more)", (p) => ({ ...p, amount: "20000000" })],
    ["in another token", (p) => ({ ...p, token: other })],
  ])("%s", async (_name, change) => {
    const p = await contractPayment();
    await indexed(p.id, change(p.params));
    expect(await creditsOf(p)).toEqual([]);
  });

  test("from another contract, or on another chain", async () => {
    const p = await contractPayment();
    await indexed(p.id, p.params, { contract: other });
    await indexed(p.id, p.params, { chainId: 1 });
    expect(await creditsOf(p)).toEqual([]);
  });

  test("naming another payment's id, even with that payment's exact params", async () => {
    const [a, b] = [await contractPayment(10_000_000n), await contractPayment(20_000_000n)];
    await indexed(a.id, { ...b.params, paymentId: a.id });
    await indexed(b.id, a.params);
    expect(await creditsOf(a)).toEqual([]);
    expect(await creditsOf(b)).toEqual([]);
  });

  test("a payment with no issued call (a deposit) is paid by no split", async () => {
    const [deposit] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { kind: "deposit", receiveAddress: "0x00000000000000000000000000000000000000d1" })]);
    await indexed(deposit!.id!, { ...(await contractPayment()).params, paymentId: deposit!.id! });
    expect(await creditsOf(deposit as PaymentRow)).toEqual([]);
  });

  test("a stranger's 1-unit squat under the id does not block or count; the customer's issued call after it does", async () => {
    const p = await contractPayment();
    await indexed(p.id, { ...p.params, amount: "1", recipient1: STRANGER, recipient2: STRANGER, recipient1Percentage: 10_000, recipient2Percentage: 0 });
    expect(await creditsOf(p)).toEqual([]);
    const paid = await indexed(p.id, p.params);
    expect((await creditsOf(p)).map((c) => [c.txHash, c.amount])).toEqual([[paid, 10_000_000n]]);
  });
});

test("a scan of new blocks finds the payments issued calls pay, and no other", async () => {
  const [paid, squatted] = [await contractPayment(), await contractPayment()];
  const from = BigInt(block);
  await indexed(paid.id, paid.params);
  await indexed(squatted.id, { ...squatted.params, recipient1: STRANGER });
  const rows = await queryRows<{ payment_id: string }>(
    handle.db,
    sql`select distinct payment_id from (${evidenceQuery(schema, { transfers: true, settlements: true, splits: true }, { chainId: "31337", aboveBlock: from })}) e`,
  );
  // (Rows of the other tests lie above `from` too: only these two payments are looked at.)
  expect(rows.map((r) => r.payment_id).filter((id) => id === paid.id || id === squatted.id)).toEqual([paid.id]);
});

test("a lookup by payments reads split_payment through its index, never whole", async () => {
  const s = sql.identifier(schema);
  await handle.db.execute(sql`
    insert into ${s}.split_payment
    select '31337:0xhist' || g || ':0', 31337, '0xk', gen_random_uuid()::text, '0x01', ${ANVIL_USDC.toLowerCase()}, 1, 1, '0x02', '0x03', '0x04', 10000, 0, 0,
           ${CONTRACT.toLowerCase()}, 200000 + g, '0xb', '0xhist' || g, 0, 0
    from generate_series(1, 20000) g`);
  await handle.db.execute(sql`analyze`);
  const p = await contractPayment();
  const query = evidenceQuery(schema, { transfers: true, settlements: true, splits: true }, { payments: [{ id: p.id, receiveAddress: null }] });
  const plan = (await queryRows<{ "QUERY PLAN": unknown }>(handle.db, sql`explain (format json) ${query}`))[0]!["QUERY PLAN"];
  const scans: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (typeof node["Relation Name"] === "string") scans.push(`${node["Node Type"]} ${node["Relation Name"]}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
  expect(scans.some((s) => s.endsWith(" split_payment"))).toBe(true);
  expect(scans.filter((s) => s.startsWith("Seq Scan") && s.endsWith(" split_payment"))).toEqual([]);
});

test("the analysts' views: a split payment's credit in payment_evidence (not a squat's), the agent and its owner in payments", async () => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await syncAnalytics(client, { viewsSchema: schema, networks: config.networks });
    const p = await contractPayment();
    await handle.db.execute(sql`update payments set agent_id = 'shopping-agent', agent_owner = 'acme_labs' where id = ${p.id}`);
    await indexed(p.id, { ...p.params, recipient1: STRANGER });
    const paid = await indexed(p.id, p.params);
    const { rows: evidence } = await client.query("select source, tx_hash, amount::text, payer from analytics.payment_evidence where payment_id = $1", [p.id]);
    expect(evidence).toEqual([{ source: "settlement", tx_hash: paid, amount: "10000000", payer: STRANGER.toLowerCase() }]);
    const { rows: agents } = await client.query("select agent_id, agent_owner from analytics.payments where payment_id = $1", [p.id]);
    expect(agents).toEqual([{ agent_id: "shopping-agent", agent_owner: "acme_labs" }]);
  } finally {
    await client.end();
  }
});
