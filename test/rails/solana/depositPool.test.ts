import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { asc, eq, isNull, sql } from "drizzle-orm";
import { Keypair } from "@solana/web3.js";
import type { Config, FileNetworkInput } from "../../../config/index.ts";
import { createLogger } from "../../../config/logger.ts";
import { queryRows } from "../../../db/client.ts";

import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { openQueue, QUEUES } from "../../../jobs/queues.ts";
import { startWorkers } from "../../../jobs/worker.ts";
import { depositKeyOf, depositKeypair, depositSeedId, poolKeypair } from "../../../rails/solana/depositKeys.ts";
import { POOL_EMPTY, replenishDepositPool } from "../../../rails/solana/depositPool.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../harness/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";
import { solanaDepositAddresses } from "../../../rails/solana/tables.ts";

/**
 * Solana deposit addresses come from a pool the worker derives ahead of need: the API claims
 * one per deposit payment (never the same twice, whatever runs at once), answers 503 and
 * prompts a refill when none is free, and the worker tops it up below the low-water mark.
 * Creation needs no chain, so the network's RPC is dead on purpose.
 */
const MINT = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey.toBase58();
const WALLET = Keypair.fromSeed(new Uint8Array(32).fill(8)).publicKey.toBase58();
const solanaNetwork: FileNetworkInput = {
  name: "Solana Pool",
  shortName: "solana-pool",
  chainId: "PoolTestGenesis1111111111111111111111111111",
  type: "solana",
  isTestnet: true,
  isLocal: true,
  requiredConfirmations: 4,
  tokens: [{ symbol: "USDC", name: "USD Coin (test)", address: MINT, decimals: 6 }],
  rpcUrl: "http://127.0.0.1:1",
};
const SEED = randomBytes(32).toString("hex");
const seedBytes = Uint8Array.from(Buffer.from(SEED, "hex"));
const logger = createLogger({ level: "silent" });

let api: TestApi;
let merchant: TestMerchant;
const withSeed = (config: Config, seed: Uint8Array | null): Config => ({ ...config, solana: { ...config.solana, depositSeed: seed } });
const ctx = (config: Config = api.config) => ({ config, db: api.db, logger });
const free = async () => (await api.db.select().from(solanaDepositAddresses).where(isNull(solanaDepositAddresses.paymentId))).length;
const createDeposit = () =>
  api.request("/api/v1/deposits/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "1", currency: "USDC", network: "solana-pool", orderId: randomUUID() } });

beforeAll(async () => {
  api = await createTestApi({
    networks: [solanaNetwork],
    env: { SOLANA_OPERATOR_ADDRESS: WALLET, SOLANA_DEPOSIT_SEED: SEED, SOLANA_DEPOSIT_POOL_SIZE: "40", SOLANA_DEPOSIT_POOL_REFILL_BELOW: "10" },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "solana-pool")!.id, WALLET);
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("the Solana deposit address pool", () => {
  test("stocked to its size at start: each row is the seed's address at its index, named by the seed's id, not the seed", async () => {
    const rows = await api.db.select().from(solanaDepositAddresses).orderBy(asc(solanaDepositAddresses.index));
    expect(rows.map((r) => r.index)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    for (const row of rows.slice(0, 5)) expect(row.address).toBe(poolKeypair(seedBytes, row.index).publicKey.toBase58());
    expect(new Set(rows.map((r) => r.seedId))).toEqual(new Set([depositSeedId(seedBytes)]));
    // Nothing in the table opens a key: no seed, no secret key, in any column.
    const dump = JSON.stringify(await queryRows(api.db, sql`select * from solana_deposit_addresses`));
    expect(dump).not.toContain(SEED);
    expect(dump).not.toContain(Buffer.from(poolKeypair(seedBytes, 0).secretKey).toString("hex").slice(0, 32));
  });

  test("above the low-water mark a refill does nothing", async () => {
    expect(await replenishDepositPool(ctx())).toBeNull();
    expect(await free()).toBe(40);
  });

  test("creates at once each get an address of their own, claimed for their payment", async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, createDeposit));
    expect(answers.map((a) => a.status)).toEqual(Array(25).fill(201));
    const addresses = answers.map((a) => a.body.payment.depositAddress as string);
    expect(new Set(addresses).size).toBe(25);
    for (const answer of answers) {
      const [row] = await api.db.select().from(solanaDepositAddresses).where(eq(solanaDepositAddresses.address, answer.body.payment.depositAddress));
      expect(row?.paymentId).toBe(answer.body.payment.id);
      expect(row?.claimedAt).toBeInstanceOf(Date);
    }
    expect(await free()).toBe(15);
  });

  test("below the low-water mark the worker tops it up with the next indexes; two refills at once derive each index once", async () => {
    for (let i = 0; i < 6; i++) expect((await createDeposit()).status).toBe(201);
    expect(await free()).toBe(9);
    const runs = await Promise.all([replenishDepositPool(ctx()), replenishDepositPool(ctx())]);
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    expect(runs.find((r) => r !== null)).toContain("40 to 70");
    expect(await free()).toBe(40);
    const rows = await api.db.select().from(solanaDepositAddresses).orderBy(asc(solanaDepositAddresses.index));
    expect(rows.map((r) => r.index)).toEqual(Array.from({ length: 71 }, (_, i) => i));
    expect(rows.at(-1)!.address).toBe(poolKeypair(seedBytes, 70).publicKey.toBase58());
  });

  test("none free: the create answers 503 saying so, and prompts the worker to refill now", async () => {
    const maintenance = openQueue(api.config, QUEUES.maintenance);
    try {
      await api.db.update(solanaDepositAddresses).set({ paymentId: sql`gen_random_uuid()`, claimedAt: new Date() }).where(isNull(solanaDepositAddresses.paymentId));
      const answer = await createDeposit();
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ success: false, error: "service_unavailable", message: POOL_EMPTY });
      const prompted = await maintenance.getJobs(["waiting", "delayed", "prioritized"]);
      expect(prompted.map((j) => j.name)).toContain("replenish");
      // The refill the prompt asks for stocks it again; the next create is served.
      expect(await replenishDepositPool(ctx())).toContain("(40 free)");
      expect((await createDeposit()).status).toBe(201);
    } finally {
      await maintenance.close();
    }
  });

  test("a refill without a seed (a worker missing SOLANA_DEPOSIT_SEED) fails saying so; one with another seed drops only the old seed's free addresses", async () => {
    expect(await replenishDepositPool(ctx(withSeed(api.config, null))).catch((e: Error) => e.message)).toContain("SOLANA_DEPOSIT_SEED is not set");
    const claimedBefore = await api.db.select().from(solanaDepositAddresses).where(sql`payment_id is not null`);
    const other = randomBytes(32);
    expect(await replenishDepositPool(ctx(withSeed(api.config, other)))).toContain("0 to 39");
    const rows = await api.db.select().from(solanaDepositAddresses);
    expect(rows.filter((r) => r.paymentId === null).every((r) => r.seedId === depositSeedId(other))).toBe(true);
    expect(rows.filter((r) => r.paymentId !== null)).toHaveLength(claimedBefore.length);
    // A payment of the old seed is never signed for with the new one.
    const payment = (await api.db.select().from(solanaDepositAddresses).where(eq(solanaDepositAddresses.seedId, depositSeedId(seedBytes))).limit(1))[0]!;
    const error = await depositKeyOf(ctx(withSeed(api.config, other)), { id: payment.paymentId!, receiveAddress: payment.address }).catch((e: Error) => e.message);
    expect(error).toContain("derives from another SOLANA_DEPOSIT_SEED");
    expect((await depositKeyOf(ctx(), { id: payment.paymentId!, receiveAddress: payment.address })).publicKey.toBase58()).toBe(payment.address);
    // Back to this file's seed for what follows.
    await replenishDepositPool(ctx());
  });

  test("the worker keeps it stocked: a schedule where a Solana network is served, and a prompted refill at once", async () => {
    const workers = await startWorkers({ config: api.config, db: api.db, logger, transfers: false, webhooks: false, dispatch: false });
    const maintenance = openQueue(api.config, QUEUES.maintenance);
    try {
      expect((await maintenance.getJobSchedulers()).map((s) => [s.key, s.every]).sort()).toContainEqual(["replenish", 10_000]);
      // The schedule's first run comes at once: once it is done (the next one waits, delayed),
      // the refill below can only be the one the 503 prompts.
      const settled = Date.now() + 10_000;
      for (;;) {
        const counts = await maintenance.getJobCounts("wait", "active", "delayed", "prioritized");
        if ((!counts.wait && !counts.active && !counts.prioritized && (counts.delayed ?? 0) > 0) || Date.now() > settled) break;
        await Bun.sleep(50);
      }
      await api.db.update(solanaDepositAddresses).set({ paymentId: sql`gen_random_uuid()`, claimedAt: new Date() }).where(isNull(solanaDepositAddresses.paymentId));
      expect((await createDeposit()).status).toBe(503); // prompts the worker
      const deadline = Date.now() + 15_000;
      while ((await free()) < 40 && Date.now() < deadline) await Bun.sleep(100);
      expect(await free()).toBe(40);
      expect((await createDeposit()).status).toBe(201);
    } finally {
      await maintenance.close();
      await workers.close();
    }
  }, 30_000);

  test("a payment from before the pool keeps its key: derived by its id from the legacy sealed seed, which nothing creates any more", async () => {
    expect(await queryRows(api.db, sql`select 1 from solana_deposit_seeds`)).toEqual([]);
    const legacy = randomBytes(64);
    await api.db.execute(sql`insert into solana_deposit_seeds (id, sealed_seed) values ('solana-deposit-v1', ${api.config.secrets.seal(legacy.toString("hex"))})`);
    const id = randomUUID();
    const address = depositKeypair(legacy, id).publicKey.toBase58();
    const row = paymentRowFactory(api.config)(merchant.id, { id, network: "solana-pool", kind: "deposit", receiveAddress: address, tokenAddress: MINT, merchantWallet: WALLET });
    await insertPaymentRows(api.db, [row]);
    expect((await depositKeyOf(ctx(), { id, receiveAddress: address })).publicKey.toBase58()).toBe(address);
    // An address neither the pool nor the legacy seed gives is refused, never signed for with some other key.
    const stranger = Keypair.generate().publicKey.toBase58();
    expect(await depositKeyOf(ctx(), { id, receiveAddress: stranger }).catch((e: Error) => e.message)).toContain("another's");
  });
});
