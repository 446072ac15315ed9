import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { ComputeBudgetProgram, Connection, Keypair, PublicKey } from "@solana/web3.js";
import { getBase58Codec } from "@solana/kit";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { findPayment } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { claimTransferOutBroadcast, findTransferOut, replaceTransferOutTx, insertTransferOut } from "../../db/transfersOut.ts";
import { reserveTransferOut, transferLedger } from "../../payouts/index.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { commands } from "../../scripts/cli/commands.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { refund } from "../../jobs/refund.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { solanaChain, solanaEvidence } from "../../rails/solana/index.ts";
import { depositKeyOf } from "../../rails/solana/depositKeys.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { solanaOperator, SWEEP_LAMPORTS } from "../../rails/solana/operator.ts";
import { MAX_PRIORITY_LAMPORTS } from "../../rails/solana/transfers/priorityFee.ts";
import { buildTransferOut } from "../../rails/solana/transfers/buildTransferOut.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { startRpcProxy } from "../../harness/rpcProxy.ts";
import { rewritingRpcProxy } from "../../harness/rewritingRpcProxy.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { until } from "../../harness/until.ts";

/**
 * The Solana rail end to end on a live local chain (slots every 25 ms): a wallet pays a
 * deposit address, the subscriber, dispatch and the workers move the payment to
 * `completed` at `finalized`, the sweep forwards the amount in one operator-paid
 * transaction, the refund sends the excess back and closes the account (rent back to
 * the operator), with `payment.forwarded` and `payment.refunded`. Then the crash points
 * of a sweep: recorded but never sent, sent but never followed, and expired unlanded.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3, blockhashValiditySlots: 40 });
  api = await createTestApi({
    networks: [solana.network],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "2000", SOLANA_HEAD_INTERVAL_MS: "50" },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await subscriber?.stop();
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const headers = () => ({ "x-public-key": merchant.publicKey });
const connection = () => new Connection(solana.chain.rpcUrl, "confirmed");
const tokenBalance = (owner: PublicKey | string) =>
  getAccount(connection(), getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(owner), true)).then((a) => a.amount, () => null);

async function createDeposit(amount: string) {
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount, currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: string };
}

const depositStatus = async (id: string) => (await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() })).body.payment;
const eventsOf = (id: string) => queryRows<{ type: string }>(api.db, sql`select type from payment_events where payment_id = ${id} order by sequence`).then((r) => r.map((e) => e.type));

describe("a deposit address, paid, forwarded and refunded", () => {
  test("overpaid: completed at finality, the amount forwarded, the excess refunded and the account closed", async () => {
    const deposit = await createDeposit("10");
    const merchantBefore = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    await solana.pay({ to: deposit.depositAddress, amount: 12_000_000n });
    const swept = await until("the sweep", async () => {
      const status = await depositStatus(deposit.id);
      return status.sweeps?.[0]?.status === "confirmed" ? status : undefined;
    });
    expect(swept).toMatchObject({ status: "completed", amountReceived: "12", excessOwed: "2" });
    expect((await tokenBalance(solana.merchant.publicKey))! - merchantBefore).toBe(10_000_000n);
    expect(await tokenBalance(deposit.depositAddress)).toBe(2_000_000n); // the excess waits for a refund address
    expect(await eventsOf(deposit.id)).toContain("payment.forwarded");

    // BUG: only the deposit key was refused: a refund to its token account moved nothing (a
    // self-transfer) and still counted as paid back.
    const depositAta = getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(deposit.depositAddress), true);
    const toItself = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: depositAta.toBase58() } });
    expect({ status: toItself.status, message: toItself.body.message }).toEqual({ status: 400, message: "Invalid field 'address': cannot refund to the payment's own deposit address" });

    const operator = solanaOperator(api.config)!.publicKey;
    const before = BigInt(await connection().getBalance(operator));
    const refund = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: solana.customer.publicKey.toBase58() } });
    expect(refund.status).toBe(202);
    const refunded = await until("the refund", async () => {
      const status = await depositStatus(deposit.id);
      return status.refunds?.[0]?.status === "confirmed" ? status : undefined;
    });
    expect(refunded).toMatchObject({ excessOwed: "0", refunded: "2" });
    expect(await eventsOf(deposit.id)).toContain("payment.refunded");
    expect(await connection().getAccountInfo(depositAta)).toBeNull(); // closed
    // The rent came back to the operator, who paid the fee: the deposit key never needed SOL.
    const tx = await connection().getTransaction(refunded.refunds[0].transactionHash, { maxSupportedTransactionVersion: 0 });
    const after = BigInt(await connection().getBalance(operator));
    expect(after - before).toBe(2_039_280n - BigInt(tx!.meta!.fee));
    expect(await connection().getBalance(new PublicKey(deposit.depositAddress))).toBe(0);
  });

  test("exact: one transaction forwards everything and closes the account", async () => {
    const deposit = await createDeposit("5");
    await solana.pay({ to: deposit.depositAddress, amount: 5_000_000n });
    const done = await until("the sweep", async () => {
      const status = await depositStatus(deposit.id);
      return status.sweeps?.[0]?.status === "confirmed" ? status : undefined;
    });
    const parsed = await connection().getParsedTransaction(done.sweeps[0].transactionHash, { maxSupportedTransactionVersion: 0 });
    const kinds = parsed!.transaction.message.instructions.map((i) => ("parsed" in i ? `${i.program}:${(i.parsed as { type: string }).type}` : i.programId.toBase58()));
    const budget = ComputeBudgetProgram.programId.toBase58();
    expect(kinds).toEqual([budget, budget, "spl-associated-token-account:createIdempotent", "spl-token:transferChecked", "spl-token:closeAccount"]);
    expect(parsed!.transaction.message.accountKeys[0]!.pubkey.toBase58()).toBe(solanaOperator(api.config)!.publicKey.toBase58()); // fee payer
    expect(await tokenBalance(deposit.depositAddress)).toBeNull();
    expect((await eventsOf(deposit.id)).filter((e) => e === "payment.forwarded").length).toBe(1);
  });
});

describe("exactly once, wherever the worker died", () => {
  // No worker from here on: each test plays the dead worker's part by hand, then runs the rail.
  beforeAll(async () => {
    await workers.close();
    workers = undefined as unknown as typeof workers;
  });

  /** A completed deposit with a reserved sweep row, as the sweep job leaves it before signing. */
  async function reservedSweep(amount: bigint) {
    const deposit = await createDeposit((Number(amount) / 1e6).toString());
    // Paid, and completed; the workers would sweep it, so the row is reserved here first.
    await solana.pay({ to: deposit.depositAddress, amount });
    const row = await until("a reservable sweep", async () => {
      await reconcilePayments(api.db, api.config, [deposit.id]);
      return reserveTransferOut(api.db, deposit.id, (p) =>
        p.status === "completed" ? { kind: "sweep", chainId: p.chainId, tokenAddress: p.tokenAddress, toAddress: p.merchantWallet, amount: p.amount } : null,
      );
    });
    const payment = (await findPayment(api.db, deposit.id))!;
    const depositKey = await depositKeyOf(api, payment);
    const signed = (await buildTransferOut({ connection: connection(), network: network(), payment, row, operator: solanaOperator(api.config)!, depositKey }))!;
    // Recorded, as the job does before it sends — and here the worker "dies".
    await claimTransferOutBroadcast(api.db, row.id, { ...signed, fromAddress: solanaOperator(api.config)!.publicKey.toBase58() });
    return { deposit, row, signed };
  }

  const ctx = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, ledger: transferLedger });

  // BUG: any failure of the balance lookup read as an empty account, and the run closed the row `failed` ("holds less").
  test("a balance lookup the node refuses (429) is not an empty account: the build throws, the transfer still goes out", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { deposit, row } = await reservedSweep(2_000_000n);
    const payment = (await findPayment(api.db, deposit.id))!;
    const depositKey = await depositKeyOf(api, payment);
    const proxy = startRpcProxy(solana.chain.rpcUrl);
    try {
      proxy.fail(["getAccountInfo"]);
      const limited = new Connection(proxy.url, { commitment: "confirmed", disableRetryOnRateLimit: true });
      const built = buildTransferOut({ connection: limited, network: network(), payment, row, operator: solanaOperator(api.config)!, depositKey });
      expect(await built.then(() => "built", (error: Error) => error.message)).toContain("429");
    } finally {
      await proxy.stop();
    }
    expect((await solanaChain.executeTransferOut(ctx(), row.id)).status).toBe("confirmed");
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(2_000_000n);
  });

  test("recorded, never sent: the next run sends the very same transaction", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { row, signed } = await reservedSweep(3_000_000n);
    const done = await solanaChain.executeTransferOut(ctx(), row.id);
    expect(done.status).toBe("confirmed");
    expect([done.txHash, ...done.replacedTxHashes]).toContain(signed.txHash);
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(3_000_000n);
    expect((await solanaChain.executeTransferOut(ctx(), row.id)).status).toBe("confirmed"); // again: nothing more
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(3_000_000n);
  });

  test("sent, never followed: the next run finds it landed and sends nothing", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { row, signed } = await reservedSweep(4_000_000n);
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    const [a, b] = await Promise.all([solanaChain.executeTransferOut(ctx(), row.id), solanaChain.executeTransferOut(ctx(), row.id)]);
    expect(a.status).toBe("confirmed");
    expect(b.status).toBe("confirmed");
    expect(a.txHash).toBe(signed.txHash);
    expect(a.replacedTxHashes).toEqual([]);
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(4_000_000n);
  });

  test("landed, yet signed again (a status lookup missed it) and the copy failed: the row is the landed transfer, confirmed", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { deposit, row, signed } = await reservedSweep(5_000_000n);
    // A second copy of the same transfer under a later blockhash, as a run that missed the first would sign.
    const payment = (await findPayment(api.db, deposit.id))!;
    const depositKey = await depositKeyOf(api, payment);
    const copy = await until("a copy under a newer blockhash", async () => {
      const built = (await buildTransferOut({ connection: connection(), network: network(), payment, row, operator: solanaOperator(api.config)!, depositKey }))!;
      return built.blockhash !== signed.blockhash ? built : undefined;
    });
    expect(copy.txHash).not.toBe(signed.txHash);
    // The first lands; the copy then lands too, and fails: the account it drains is gone.
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    await until("the first to land", async () => (await connection().getSignatureStatuses([signed.txHash], { searchTransactionHistory: true })).value[0]);
    await connection().sendRawTransaction(Buffer.from(copy.rawTx, "base64"), { skipPreflight: true });
    const failed = await until("the copy to land", async () => (await connection().getSignatureStatuses([copy.txHash], { searchTransactionHistory: true })).value[0]);
    expect(failed.err).not.toBeNull();
    await replaceTransferOutTx(api.db, row.id, signed.txHash, { rawTx: copy.rawTx, txHash: copy.txHash, blockhash: copy.blockhash, lastValidBlockHeight: copy.lastValidBlockHeight });

    const done = await solanaChain.executeTransferOut(ctx(), row.id);
    expect(done).toMatchObject({ status: "confirmed", txHash: signed.txHash, error: null });
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(5_000_000n);
  });

  test("recorded, never sent, blockhash expired: checked unlanded, then signed again once", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { row, signed } = await reservedSweep(6_000_000n);
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    const done = await solanaChain.executeTransferOut(ctx(), row.id);
    expect(done.status).toBe("confirmed");
    expect(done.replacedTxHashes).toEqual([signed.txHash]);
    expect(done.txHash).not.toBe(signed.txHash);
    expect((await connection().getSignatureStatuses([signed.txHash], { searchTransactionHistory: true })).value[0]).toBeNull();
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(6_000_000n);
    expect((await findTransferOut(api.db, row.id))!.status).toBe("confirmed");
  });

  // BUG: the fresh blockhash came from whichever node answered (a lagging one's may be expired
  // already), and a re-signing skipped the follow's pace: it signed again at once, again and
  // again, doubling the priority fee each time and piling signatures on the row.
  test("re-signing: a node answering an expired blockhash gets nothing recorded; the next run signs once", async () => {
    const { row, signed } = await reservedSweep(2_000_000n);
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    const stale = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) =>
      call.method === "getLatestBlockhash"
        ? ({ ...answer, result: { ...(answer as { result: { context: unknown } }).result, value: { blockhash: signed.blockhash, lastValidBlockHeight: Number(signed.lastValidBlockHeight) } } } as never)
        : answer,
    );
    try {
      const behind = { ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: stale.url } : n)) } };
      expect(await solanaChain.executeTransferOut(behind, row.id).catch((error: Error) => error.message)).toContain("expired blockhash");
      expect((await findTransferOut(api.db, row.id))!).toMatchObject({ status: "broadcast", txHash: signed.txHash, replacedTxHashes: [] });
    } finally {
      stale.stop();
    }
    const done = await solanaChain.executeTransferOut(ctx(), row.id);
    expect(done).toMatchObject({ status: "confirmed", replacedTxHashes: [signed.txHash] });
  });

  // BUG: a node lagging behind the one that gave the finalized height (one load-balanced
  // URL) did not know the landed transfer; its "unknown" read as "expired unlanded", the
  // run signed again, found the deposit account empty and closed the landed sweep `failed`.
  test("landed and expired, asked of a lagging node: no new signature; once a caught-up node answers, confirmed as it landed", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { row, signed } = await reservedSweep(7_000_000n);
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    let lagging = 3;
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method !== "getSignatureStatuses" || lagging <= 0) return answer;
      lagging--;
      const result = answer.result as { context: { slot: number }; value: unknown[] };
      return { ...answer, result: { context: { ...result.context, slot: 1 }, value: result.value.map(() => null) } };
    });
    try {
      const behindProxy = { ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: proxy.url } : n)) } };
      const done = await solanaChain.executeTransferOut(behindProxy, row.id);
      expect(done).toMatchObject({ status: "confirmed", txHash: signed.txHash, replacedTxHashes: [], error: null });
      expect(lagging).toBe(0); // every lagging answer was asked for, and none decided anything
    } finally {
      proxy.stop();
    }
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(7_000_000n);
  });

  // BUG: the operator's cancel read the finalized height, then the statuses from whichever
  // node answered: a lagging one's "unknown" closed a landed sweep (or refund) `failed`.
  test("cancelled by the operator, asked of a lagging node: refused, not closed; a caught-up node finds it landed", async () => {
    const { row, signed } = await reservedSweep(3_000_000n);
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method !== "getSignatureStatuses") return answer;
      const result = answer.result as { context: { slot: number }; value: unknown[] };
      return { ...answer, result: { context: { ...result.context, slot: 1 }, value: result.value.map(() => null) } };
    });
    try {
      const behindProxy = { ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: proxy.url } : n)) } };
      const refused = await solanaChain.cancelTransferOut(behindProxy, row.id).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toContain("behind the finalized slot");
      expect((await findTransferOut(api.db, row.id))!.status).toBe("broadcast");
    } finally {
      proxy.stop();
    }
    expect((await solanaChain.cancelTransferOut(ctx(), row.id)).row).toMatchObject({ status: "confirmed", txHash: signed.txHash });
  });

  const viaProxy = (url: string) => ({ ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: url } : n)) } });

  // BUG: a failed status was believed at any commitment: the same bytes can fail on a fork the
  // cluster drops and succeed on the one it keeps — the row closed `failed` while the money moved.
  test("failed at `confirmed` only (a fork the cluster drops): not closed; the transfer as it was finalized decides", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { row, signed } = await reservedSweep(2_500_000n);
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    let forked = 3;
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method !== "getSignatureStatuses" || forked <= 0) return answer;
      forked--;
      const result = answer.result as { context: { slot: number }; value: unknown[] };
      const failed = { slot: result.context.slot, confirmations: 1, err: { InstructionError: [0, { Custom: 1 }] }, status: { Err: {} }, confirmationStatus: "confirmed" };
      return { ...answer, result: { ...result, value: result.value.map(() => failed) } };
    });
    try {
      const done = await solanaChain.executeTransferOut(viaProxy(proxy.url), row.id);
      expect(done).toMatchObject({ status: "confirmed", txHash: signed.txHash, error: null });
      expect(forked).toBe(0);
    } finally {
      proxy.stop();
    }
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(2_500_000n);
  });

  // BUG: every status read named all of a row's signatures in one call; a row signed again
  // more than 255 times (an operator short of SOL overnight) could never be followed or cancelled.
  test("a row with more signatures than one status call may name is still followed", async () => {
    const { row, signed } = await reservedSweep(1_500_000n);
    await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
    const expired = Array.from({ length: 300 }, () => getBase58Codec().decode(crypto.getRandomValues(new Uint8Array(64))));
    await api.db.execute(sql`update transfers_out set replaced_tx_hashes = ${sql.param(expired)}::text[] where id = ${row.id}`);
    expect(await solanaChain.executeTransferOut(ctx(), row.id)).toMatchObject({ status: "confirmed", txHash: signed.txHash });
  });

  // BUG: only the first signing checked the operator's SOL: each expiry of a transaction the
  // fee payer could not pay signed it again, a signature more every minute or so.
  test("expired unlanded with the operator short of SOL: refused, not signed again; once funded, signed again once", async () => {
    const { row, signed } = await reservedSweep(2_200_000n);
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) =>
      call.method === "getBalance" ? { ...answer, result: { ...(answer.result as object), value: 0 } } : answer,
    );
    try {
      const refused = await solanaChain.executeTransferOut(viaProxy(proxy.url), row.id).catch((error: Error) => error);
      expect((refused as Error).name).toBe("OperatorBalanceLowError");
      expect((await findTransferOut(api.db, row.id))!).toMatchObject({ status: "broadcast", txHash: signed.txHash, replacedTxHashes: [] });
    } finally {
      proxy.stop();
    }
    expect(await solanaChain.executeTransferOut(ctx(), row.id)).toMatchObject({ status: "confirmed", replacedTxHashes: [signed.txHash] });
  });

  // BUG: each of up to 16 concurrent transfers judged the fee payer's SOL alone: with enough
  // for one, two both signed and the second to land failed for want of rent (its fee burned).
  test("the fee payer's SOL is judged against every transfer of the chain already out", async () => {
    const deposit = await createDeposit("1.3");
    await solana.pay({ to: deposit.depositAddress, amount: 1_300_000n });
    const row = await until("a reservable sweep", async () => {
      await reconcilePayments(api.db, api.config, [deposit.id]);
      return reserveTransferOut(api.db, deposit.id, (p) =>
        p.status === "completed" ? { kind: "sweep", chainId: p.chainId, tokenAddress: p.tokenAddress, toAddress: p.merchantWallet, amount: p.amount } : null,
      );
    });
    // Another transfer of the chain is out, not final; the operator holds enough for one.
    const other = (await insertTransferOut(api.db, { paymentId: (await createDeposit("1")).id, kind: "sweep", chainId: network().chainId, tokenAddress: row.tokenAddress, toAddress: row.toAddress, amount: 1n }))!;
    await api.db.execute(sql`update transfers_out set status = 'broadcast' where id = ${other.id}`);
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) =>
      call.method === "getBalance" ? { ...answer, result: { ...(answer.result as object), value: Number(SWEEP_LAMPORTS + 1_000_000n) } } : answer,
    );
    try {
      const refused = await solanaChain.executeTransferOut(viaProxy(proxy.url), row.id).catch((error: Error) => error);
      expect((refused as Error).name).toBe("OperatorBalanceLowError");
      expect((await findTransferOut(api.db, row.id))!.status).toBe("requested");
    } finally {
      proxy.stop();
      await api.db.execute(sql`update transfers_out set status = 'failed', error = 'test' where id = ${other.id}`);
    }
    expect(await solanaChain.executeTransferOut(ctx(), row.id)).toMatchObject({ status: "confirmed" });
  });

  // BUG: the operator's cancel closed the row whatever transaction it held by then: a
  // follow-up that signed it again meanwhile had sent one that could still land.
  test("cancelled while a follow-up signs it again: refused, the row keeps the new transaction, which lands once", async () => {
    const before = (await tokenBalance(solana.merchant.publicKey)) ?? 0n;
    const { deposit, row, signed } = await reservedSweep(1_200_000n);
    await until("the blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
    const payment = (await findPayment(api.db, deposit.id))!;
    const depositKey = await depositKeyOf(api, payment);
    const copy = (await buildTransferOut({ connection: connection(), network: network(), payment, row, operator: solanaOperator(api.config)!, depositKey }))!;
    let raced = false;
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, async (call, answer) => {
      if (call.method === "getSignatureStatuses" && !raced) {
        raced = true; // the follow-up's replacement lands in the row between the cancel's read and its write
        await replaceTransferOutTx(api.db, row.id, signed.txHash, { rawTx: copy.rawTx, txHash: copy.txHash, blockhash: copy.blockhash, lastValidBlockHeight: copy.lastValidBlockHeight });
        await connection().sendRawTransaction(Buffer.from(copy.rawTx, "base64"));
      }
      return answer;
    });
    try {
      const refused = await solanaChain.cancelTransferOut(viaProxy(proxy.url), row.id).catch((error: Error) => error);
      expect((refused as Error).message).toContain("signed again while it was being cancelled");
    } finally {
      proxy.stop();
    }
    expect((await findTransferOut(api.db, row.id))!).toMatchObject({ status: "broadcast", txHash: copy.txHash });
    expect(await solanaChain.executeTransferOut(ctx(), row.id)).toMatchObject({ status: "confirmed", txHash: copy.txHash });
    expect((await tokenBalance(solana.merchant.publicKey))! - before).toBe(1_200_000n);
  });
});

describe("a refund and the subscriber's check at finalized", () => {
  // No workers: the refund job runs by hand, when the test says.
  beforeAll(async () => {
    await workers?.close();
    workers = undefined as unknown as typeof workers;
  });
  const ctx = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, ledger: transferLedger });

  // BUG: a refund went out once the node's finalized slot passed the paying credit, before
  // the subscriber had seen that credit at `finalized`: an excess a dropped fork carried
  // would have been paid back from money that never arrived.
  test("an excess credited at `confirmed` is refunded only once the subscriber has checked it, however far the node's finalized slot is", async () => {
    const deposit = await createDeposit("1");
    await solana.pay({ to: deposit.depositAddress, amount: 1_000_000n });
    // No workers run here: reconciled by hand, as dispatch would.
    await until("completed", async () => (await reconcilePayments(api.db, api.config, [deposit.id]), (await findPayment(api.db, deposit.id))!.status === "completed"));
    // The subscriber stops: the second transfer is recorded at `confirmed` (as a lookup
    // records it) and nobody checks it at `finalized`.
    await subscriber.stop();
    try {
      await solana.pay({ to: deposit.depositAddress, amount: 2_000_000n });
      await solanaEvidence.refreshEvidence!(ctx(), (await findPayment(api.db, deposit.id))!, network());
      const [credit] = await queryRows<{ slot: string; finalized: boolean }>(
        api.db,
        sql`select slot::text, finalized from solana_credits where payment_id = ${deposit.id} and amount = 2000000`,
      );
      expect(credit).toMatchObject({ finalized: false });
      await until("the node's finalized slot past the excess", async () => BigInt(await connection().getSlot("finalized")) > BigInt(credit!.slot));
      await reconcilePayments(api.db, api.config, [deposit.id]);
      const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: solana.customer.publicKey.toBase58() } });
      expect({ status: request.status, body: request.body }).toMatchObject({ status: 202 });
      const transferId = request.body.refund.id as string;
      expect(await refund(ctx())({ data: { transferId }, id: "test" } as never)).toMatchObject({ status: "requested", waiting: expect.stringMatching(/is not final yet/) });
    } finally {
      subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
      await subscriber.ready;
    }
    // Checked at `finalized`: the refund goes out, once.
    await until("the excess checked at finalized", async () => {
      const [row] = await queryRows<{ finalized: boolean }>(api.db, sql`select finalized from solana_credits where payment_id = ${deposit.id} and amount = 2000000`);
      return row?.finalized;
    });
    const [row] = await queryRows<{ id: string }>(api.db, sql`select id from transfers_out where payment_id = ${deposit.id} and kind = 'refund'`);
    // BUG: a node that had not seen the deposit account yet ("no such account") closed the refund
    // as "holds less"; so did one that had not seen the excess yet (its balance read without a
    // slot floor). A node behind the last credit: it refuses reads floored there.
    const lagging = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
      const floor = (call.params?.[1] as { minContextSlot?: number } | undefined)?.minContextSlot;
      if (call.method === "getAccountInfo" && floor !== undefined) {
        return { jsonrpc: "2.0", id: answer.id, error: { code: -32016, message: "Minimum context slot has not been reached", data: { contextSlot: floor - 1 } } } as never;
      }
      if (call.method === "getTokenAccountBalance") return { jsonrpc: "2.0", id: answer.id, result: { context: { slot: 1 }, value: { amount: "1000000", decimals: 6, uiAmount: 1, uiAmountString: "1" } } } as never;
      // Unfloored, it answers the deposit account as it stood before the excess.
      const held = (answer.result as { value?: { data?: { parsed?: { info?: { tokenAmount?: { amount: string } } } } } } | undefined)?.value?.data?.parsed?.info?.tokenAmount;
      if (call.method === "getAccountInfo" && held) held.amount = "1000000";
      return answer;
    });
    try {
      const behind = { ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: lagging.url } : n)) } };
      // The balance a refund request reads, too (it would have offered 1 of the 2 owed, or nothing).
      const payment = (await findPayment(api.db, deposit.id))!;
      expect(await solanaChain.balanceOf({ ...network(), rpcUrl: lagging.url }, payment, 5_000).catch((error: Error) => error.message)).toContain("Minimum context slot has not been reached");
      expect(await refund(behind)({ data: { transferId: row!.id }, id: "test" } as never).catch((error: Error) => error.message)).toContain("Minimum context slot has not been reached");
      expect((await findTransferOut(api.db, row!.id))!.status).toBe("requested");
    } finally {
      lagging.stop();
    }
    expect(await refund(ctx())({ data: { transferId: row!.id }, id: "test" } as never)).toMatchObject({ status: "confirmed" });
    expect((await depositStatus(deposit.id)).refunded).toBe("2");
  });
});

// BUG: the refund address was checked only when the refund was asked for; signed later (after
// finality, or a retry), a token account closed meanwhile (a wallet's "close empty accounts") read
// as a wallet, and the refund went to an account owned by it: no key signs for that, the money lost.
test("a refund address that can no longer receive when the refund is signed: nothing sent, the refund closed naming it", async () => {
  const deposit = await createDeposit("1");
  await solana.pay({ to: deposit.depositAddress, amount: 3_000_000n });
  await until("completed, the excess final", async () => {
    await reconcilePayments(api.db, api.config, [deposit.id]);
    const [row] = await queryRows<{ finalized: boolean }>(api.db, sql`select bool_and(finalized) as finalized from solana_credits where payment_id = ${deposit.id}`);
    return (await findPayment(api.db, deposit.id))!.status === "completed" && Boolean(row?.finalized);
  });
  const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: solana.customer.publicKey.toBase58() } });
  expect(request.status).toBe(202);
  const transferId = request.body.refund.id as string;
  // Since asked for, the address is an account that is gone (as a closed token account is).
  const closed = getAssociatedTokenAddressSync(solana.usdc.address, Keypair.generate().publicKey, true).toBase58();
  await api.db.execute(sql`update transfers_out set to_address = ${closed} where id = ${transferId}`);
  const held = await solanaChain.balanceOf(network(), (await findPayment(api.db, deposit.id))!, 5_000);
  const ctx = { config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl };
  const done = await refund(ctx)({ data: { transferId }, id: "test" } as never).catch((error: Error) => error);
  expect(done).not.toBeInstanceOf(Error);
  const row = (await findTransferOut(api.db, transferId))!;
  expect(row).toMatchObject({ status: "failed", txHash: null });
  expect(row.error).toContain("no key can sign for it");
  expect(await solanaChain.balanceOf(network(), (await findPayment(api.db, deposit.id))!, 5_000)).toBe(held);
});

// BUG: the SOL the operator had to hold (2.1M lamports) left out its own rent-exempt minimum and
// Token-2022's larger account: with a little more than that, a transfer creating the recipient's
// account landed failed for want of rent (the fee burned), three times and refunds were refused.
test("the SOL the operator must hold covers the largest account a transfer creates, two fees and its own rent-exempt minimum", async () => {
  const c = connection();
  const rent = async (bytes: number) => BigInt(await c.getMinimumBalanceForRentExemption(bytes));
  expect(SWEEP_LAMPORTS).toBe((await rent(182)) + 2n * 5_000n + (await rent(0)) + MAX_PRIORITY_LAMPORTS);
});

// BUG: a refund pays a token account of the mint directly, else the associated token account
// *owned by* the address given: a customer's USDT account (for a USDC payment), or their closed
// USDC account, became the owner of a new account no one can spend from — the refund lost.
describe("a refund address that could not spend what it gets", () => {
  test("refused with a 400 naming the address: another mint's token account, a mint's program, an off-curve address holding nothing; a token account of the mint and a wallet are taken", async () => {
    const deposit = await createDeposit("1");
    const ask = (address: string) => api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address } });
    const otherMint = getAssociatedTokenAddressSync(solana.feeToken.address, solana.customer.publicKey, true, solana.feeToken.programId);
    const neverOpened = getAssociatedTokenAddressSync(solana.usdc.address, Keypair.generate().publicKey, true);
    for (const [address, why] of [
      [otherMint.toBase58(), "a token account of another token than USDC"],
      [solana.feeToken.programId.toBase58(), "it is a program"],
      [neverOpened.toBase58(), "no key can sign for it"],
    ] as const) {
      const refused = await ask(address);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain("Invalid field 'address': tokens refunded there could not be spent");
      expect(refused.body.message).toContain(why);
    }
    // The customer's own USDC account, and a wallet: the address is fine, there is just nothing to refund.
    const usdcAccount = getAssociatedTokenAddressSync(solana.usdc.address, solana.customer.publicKey, true);
    for (const address of [usdcAccount.toBase58(), Keypair.generate().publicKey.toBase58()]) {
      const answer = await ask(address);
      expect(answer.status).toBe(409);
      expect(answer.body.error).toBe("nothing_to_refund");
    }
  });

  // BUG: `wallet set` took a token account as a merchant's Solana wallet: its own mint's sweeps
  // arrived, but another mint's went to an account owned by that token account (no key signs for it).
  test("cli wallet set refuses a token account, a mint, a program and an empty off-curve address; takes a wallet", async () => {
    const run = (address: string) => commands["wallet set"]!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, { merchant: merchant.id, network: network().shortName, address });
    const usdcAccount = getAssociatedTokenAddressSync(solana.usdc.address, solana.customer.publicKey, true);
    const mint = (await solana.chain.createMint({ decimals: 6 })).address;
    // Read at `confirmed`, a slot or two behind the newest here.
    while (!(await connection().getAccountInfo(mint, "confirmed"))) await Bun.sleep(25);
    for (const [address, why] of [
      [usdcAccount.toBase58(), "it is a token account, not a wallet"],
      [solana.usdc.address.toBase58(), "cannot come back"], // a configured mint is refused offline
      [mint.toBase58(), "it is a token mint"],
      [solana.feeToken.programId.toBase58(), "it is a program"],
      [getAssociatedTokenAddressSync(solana.usdc.address, Keypair.generate().publicKey, true).toBase58(), "no key can sign for it"],
    ] as const) {
      await expect([address, await run(address).catch((error: Error) => error.message)]).toEqual([address, expect.stringContaining(why)]);
    }
    expect(await run(solana.merchant.publicKey.toBase58())).toContain(`Settlement wallet on ${network().name}: ${solana.merchant.publicKey.toBase58()}`);
  });

  // BUG: a node that failed the address's read answered 500 (the error could name the RPC URL and its key).
  test("the node failing the read: 503, nothing recorded", async () => {
    const deposit = await createDeposit("1");
    const proxy = startRpcProxy(solana.chain.rpcUrl);
    const served = network();
    const rpcUrl = served.rpcUrl;
    try {
      proxy.fail(["getAccountInfo"]);
      served.rpcUrl = proxy.url;
      const answer = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: Keypair.generate().publicKey.toBase58() } });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: "service_unavailable", message: "The Solana Test node did not answer; retry shortly." });
    } finally {
      served.rpcUrl = rpcUrl;
      await proxy.stop();
    }
    expect((await depositStatus(deposit.id)).refunds).toHaveLength(0);
  });
});
