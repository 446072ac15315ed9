import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Config } from "../../../../config/index.ts";
import { createDb, queryRows, type DbHandle } from "../../../../db/client.ts";
import { createMerchant } from "../../../../db/merchants.ts";
import { evidenceQuery, type EvidenceRow } from "../../../../rails/evm/readModel/evidence.ts";
import { insertReplayed } from "../../../../db/replayedEvidence.ts";
import { createTestDatabase, type TestDatabase } from "../../../../harness/database.ts";
import { anvilNetwork } from "../../../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedSettlement, insertIndexedTransfer } from "../../../../harness/indexedTables.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../../harness/paymentRows.ts";
import { buildConfig } from "../../../../plugins/config.ts";

/**
 * Reconcile reads evidence by payment ids on every job. The indexer's tables only grow
 * (a mainnet settlement contract's history), so that read must walk their indexes: the
 * memory benchmark's rounds slowed from 6 s to 16 s over 40,000 payments while this
 * query scanned `settlement_payment` whole (the replayed rows' union kept the join
 * condition outside it).
 */
const schema = "evidence_views";
const CONTRACT = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";
const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const MERCHANT = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let contractPaymentId: string;
let depositPayment: { id: string; receiveAddress: string };
/** A reconcile job's batch: 250 payments (the one paid by contract among them). */
let batch: Array<{ id: string; receiveAddress: string | null }>;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1")] });
  const merchantId = (await createMerchant(handle.db, { name: "Evidence" })).id;
  await createIndexedTables(handle.db, schema);
  const row = paymentRowFactory(config);
  const [deposit, ...contractPayments] = await insertPaymentRows(handle.db, [
    row(merchantId, { receiveAddress: "0x00000000000000000000000000000000000000AA" }),
    ...Array.from({ length: 249 }, () => row(merchantId, { contractAddress: CONTRACT, merchantWallet: MERCHANT })),
  ]);
  contractPaymentId = contractPayments[0]!.id!;
  depositPayment = { id: deposit!.id!, receiveAddress: deposit!.receiveAddress! };
  batch = [depositPayment, ...contractPayments.map((p) => ({ id: p.id!, receiveAddress: null }))];
  // History that pays other payments: 20,000 rows in each table.
  const s = sql.identifier(schema);
  await handle.db.execute(sql`
    insert into ${s}.settlement_payment
    select '31337:0x' || g || ':0', 31337, '0x' || lpad(to_hex(g), 64, '0'), '0x01', ${TOKEN}, ${MERCHANT}, 1000000, 0, ${CONTRACT}, g, '0xb', '0x' || g, 0, 0
    from generate_series(1, 20000) g`);
  await handle.db.execute(sql`
    insert into ${s}.token_transfer
    select '31337:0x' || g || ':1', 31337, g, '0xb', '0x' || g, 1, ${TOKEN}, '0x01', '0xf' || lpad(to_hex(g), 39, '0'), 1000000, 0
    from generate_series(1, 20000) g`);
  const at = new Date();
  await insertIndexedSettlement(handle.db, schema, {
    chainId: 31337, paymentId: contractPaymentId, payer: "0x01", token: TOKEN, merchant: MERCHANT, amount: 1_000_000n, fee: 0n, contract: CONTRACT, blockNumber: 30_001, txHash: "0xpaid", at,
  });
  await insertIndexedTransfer(handle.db, schema, { chainId: 31337, blockNumber: 30_002, txHash: "0xdeposit", token: TOKEN, from: "0x01", to: depositPayment.receiveAddress, amount: 400_000n, at });
  await handle.db.execute(sql`analyze`);
});

afterAll(async () => {
  await handle.close();
  await database.drop();
});

const byPayments = () => evidenceQuery(schema, { transfers: true, settlements: true }, { payments: batch });

test("a lookup by payments finds each one's settlement and transfers", async () => {
  const rows = await queryRows<EvidenceRow>(handle.db, byPayments());
  expect(rows.map((r) => [r.payment_id, r.source, r.amount, r.tx_hash]).sort()).toEqual(
    [
      [contractPaymentId, "settlement", "1000000", "0xpaid"],
      [depositPayment.id, "transfer", "400000", "0xdeposit"],
    ].sort(),
  );
});

test("each credit names who paid it: the transfer's sender, the settlement event's payer", async () => {
  const rows = await queryRows<EvidenceRow>(handle.db, byPayments());
  expect(rows.map((r) => [r.source, r.payer]).sort()).toEqual([
    ["settlement", "0x01"],
    ["transfer", "0x01"],
  ]);
});

test("a lookup by payments reads the indexed tables through their indexes, never whole", async () => {
  const plan = (await queryRows<{ "QUERY PLAN": unknown }>(handle.db, sql`explain (format json) ${byPayments()}`))[0]!["QUERY PLAN"];
  const scans: string[] = [];
  const walk = (node: Record<string, unknown>) => {
    if (typeof node["Relation Name"] === "string") scans.push(`${node["Node Type"]} ${node["Relation Name"]}`);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
  };
  walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
  expect(scans.some((s) => s.endsWith("settlement_payment"))).toBe(true);
  expect(scans.filter((s) => s.startsWith("Seq Scan") && /(settlement_payment|token_transfer)$/.test(s) && !s.includes("replayed"))).toEqual([]);
});

// BUG: a replay of a long outage on a busy chain wrote everything it found in one statement;
// past ~6,000 transfers (11 parameters a row, 65,535 a statement) Postgres refused it, and the
// replay lost every read.
test("a replay's thousands of rows are recorded, in statements Postgres takes", async () => {
  const transfers = Array.from({ length: 7_000 }, (_, i) => ({
    id: `31337:0xreplayed${i}:0`, chainId: 31337, blockNumber: String(50_000 + i), blockHash: "0xb", txHash: `0xreplayed${i}`, logIndex: 0,
    token: TOKEN, from: "0x01", to: "0x02", amount: "1", timestamp: "0",
  }));
  const settlements = Array.from({ length: 5_000 }, (_, i) => ({
    id: `31337:0xsettled${i}:0`, chainId: 31337, paymentId: `0x${i}`, payer: "0x01", token: TOKEN, merchant: MERCHANT, amount: "1", fee: "0",
    contract: CONTRACT, blockNumber: String(60_000 + i), blockHash: "0xb", txHash: `0xsettled${i}`, logIndex: 0, timestamp: "0",
  }));
  try {
    expect((await insertReplayed(handle.db, { transfers, settlements })).size).toBe(12_000);
    // Recorded already: nothing new.
    expect((await insertReplayed(handle.db, { transfers: transfers.slice(0, 10), settlements: [] })).size).toBe(0);
  } finally {
    await handle.db.execute(sql`delete from replayed_token_transfer where id like '31337:0xreplayed%'`);
    await handle.db.execute(sql`delete from replayed_settlement_payment where id like '31337:0xsettled%'`);
  }
});

// BUG: a settlement was credited the intent's amount (`PaymentSettled.amount`): a fee-on-transfer
// token (USDT has the switch) delivered 1% less and the payment completed all the same.
test("a settlement counts what its token Transfers delivered to the merchant and the fee recipient, at most the intent's amount", async () => {
  const FEE_RECIPIENT = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
  const COLLECTOR = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";
  const row = paymentRowFactory(config);
  const merchantId = (await createMerchant(handle.db, { name: "Fee token" })).id;
  const [feeToken, withServiceFee, topUp, legacy] = await insertPaymentRows(handle.db, [
    row(merchantId, { contractAddress: CONTRACT, merchantWallet: MERCHANT }),
    row(merchantId, { contractAddress: CONTRACT, merchantWallet: MERCHANT, feeAmount: 100_000n, feeRecipient: FEE_RECIPIENT }),
    row(merchantId, { contractAddress: CONTRACT, merchantWallet: MERCHANT }),
    row(merchantId, { contractAddress: CONTRACT, merchantWallet: MERCHANT }),
  ]);
  const settle = (paymentId: string, n: number, transfers?: Array<{ to: string; amount: bigint }>, fee = 0n) =>
    insertIndexedSettlement(handle.db, schema, {
      chainId: 31337, paymentId, payer: "0x01", token: TOKEN, merchant: MERCHANT, amount: 1_000_000n, fee, contract: CONTRACT, blockNumber: 40_000 + n, txHash: `0xfee${n}`, at: new Date(), transfers,
    });
  // 1% to the token's collector: the merchant got 990,000.
  await settle(feeToken!.id!, 1, [{ to: COLLECTOR, amount: 10_000n }, { to: MERCHANT, amount: 990_000n }]);
  // The service fee split: 900,000 and 100,000, each less 1%.
  await settle(withServiceFee!.id!, 2, [{ to: COLLECTOR, amount: 9_000n }, { to: MERCHANT, amount: 891_000n }, { to: COLLECTOR, amount: 1_000n }, { to: FEE_RECIPIENT, amount: 99_000n }], 100_000n);
  // More reached the merchant than the intent says (the payer sent more in the same call): the intent caps it.
  await settle(topUp!.id!, 3, [{ to: MERCHANT, amount: 1_500_000n }]);
  // Recorded before Transfers were (an old replay): its amount, as before.
  await settle(legacy!.id!, 4);
  const ids = [feeToken!, withServiceFee!, topUp!, legacy!].map((p) => ({ id: p.id!, receiveAddress: null }));
  const rows = await queryRows<EvidenceRow>(handle.db, evidenceQuery(schema, { transfers: true, settlements: true }, { payments: ids }));
  const credited = new Map(rows.map((r) => [r.payment_id, r.amount]));
  expect(ids.map((p) => credited.get(p.id))).toEqual(["990000", "990000", "1000000", "1000000"]);
});
