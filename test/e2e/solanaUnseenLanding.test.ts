import { afterAll, beforeAll, expect, test } from "bun:test";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, PublicKey } from "@solana/web3.js";
import { createLogger } from "../../config/logger.ts";
import { findPayment } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { claimTransferOutBroadcast, findTransferOut } from "../../db/transfersOut.ts";
import { reserveTransferOut, transferLedger } from "../../payouts/index.ts";
import { solanaChain } from "../../rails/solana/index.ts";
import { depositKeyOf } from "../../rails/solana/depositKeys.ts";
import { solanaOperator } from "../../rails/solana/operator.ts";
import { buildTransferOut } from "../../rails/solana/transfers/buildTransferOut.ts";
import { rewritingRpcProxy } from "../../harness/rewritingRpcProxy.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { until } from "../../harness/until.ts";

/**
 * A Solana sweep or refund whose blockhash expired is signed again only once the deposit
 * account proves the first did not land: it holds exactly what it held at signing. A node
 * that drops status answers (or keeps no history) once made a landed refund of 50 out of
 * 150 go out twice: "not found", the blockhash expired, 100 left — enough to sign it again.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3, blockhashValiditySlots: 40 });
  api = await createTestApi({ networks: [solana.network], env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const connection = () => new Connection(solana.chain.rpcUrl, "confirmed");
const ctx = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, ledger: transferLedger });
const viaProxy = (url: string) => ({ ...ctx(), config: { ...api.config, networks: api.config.networks.map((n) => (n.chainId === network().chainId ? { ...n, rpcUrl: url } : n)) } });
const balanceOf = (owner: PublicKey | string) =>
  getAccount(connection(), getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(owner), true)).then((a) => a.amount, () => 0n);

/** A node that answers every status lookup "not found" at its real (caught-up) slot: dropped answers, or no history. */
const blindToStatuses = () =>
  rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
    if (call.method !== "getSignatureStatuses") return answer;
    const result = answer.result as { context: { slot: number }; value: unknown[] };
    return { ...answer, result: { ...result, value: result.value.map(() => null) } };
  });

/** A deposit paid 150, and a refund of 50 to the customer signed and recorded as the job does (not yet sent). */
async function signedRefund() {
  const response = await api.request("/api/v1/deposits/create", {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount: "100", currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() },
  });
  expect(response.status).toBe(201);
  const deposit = response.body.payment as { id: string; depositAddress: string };
  await solana.pay({ to: deposit.depositAddress, amount: 150_000_000n });
  const row = (await reserveTransferOut(api.db, deposit.id, (p) => ({
    kind: "refund",
    chainId: p.chainId,
    tokenAddress: p.tokenAddress,
    toAddress: solana.customer.publicKey.toBase58(),
    amount: 50_000_000n,
  })))!;
  const payment = (await findPayment(api.db, deposit.id))!;
  const depositKey = await depositKeyOf(api, payment);
  const operator = solanaOperator(api.config)!;
  const signed = (await buildTransferOut({ connection: connection(), network: network(), payment, row, operator, depositKey }))!;
  expect(signed.sourceBalance).toBe(150_000_000n);
  await claimTransferOutBroadcast(api.db, row.id, { ...signed, fromAddress: operator.publicKey.toBase58() });
  expect((await findTransferOut(api.db, row.id))!.sourceBalance).toBe(150_000_000n);
  return { deposit, row, signed };
}

test("a refund of 50 out of 150 that landed unseen is never sent twice, by the follow-up or by the operator's cancel", async () => {
  const { deposit, row, signed } = await signedRefund();
  const customerBefore = await balanceOf(solana.customer.publicKey);
  await connection().sendRawTransaction(Buffer.from(signed.rawTx, "base64"));
  await until("the refund to land", async () => (await connection().getSignatureStatuses([signed.txHash], { searchTransactionHistory: true })).value[0]);
  await until("its blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
  expect(await balanceOf(deposit.depositAddress)).toBe(100_000_000n); // 100 left: enough to sign the 50 again

  const blind = blindToStatuses();
  try {
    for (let run = 0; run < 2; run++) {
      const refused = await solanaChain.executeTransferOut(viaProxy(blind.url), row.id).then(() => null, (error: Error) => error.message);
      expect(refused).toContain("holds 100000000, not the 150000000 it held when transfer");
      expect(refused).toContain("may have landed unseen");
    }
    const cancel = await solanaChain.cancelTransferOut(viaProxy(blind.url), row.id).then(() => null, (error: Error) => error.message);
    expect(cancel).toContain("may have landed unseen");
    expect(await findTransferOut(api.db, row.id)).toMatchObject({ status: "broadcast", txHash: signed.txHash, replacedTxHashes: [] });
  } finally {
    blind.stop();
  }
  expect((await balanceOf(solana.customer.publicKey)) - customerBefore).toBe(50_000_000n);
  expect(await balanceOf(deposit.depositAddress)).toBe(100_000_000n);

  // A node that reports it: confirmed as it landed, nothing more sent.
  const done = await solanaChain.executeTransferOut(ctx(), row.id);
  expect(done).toMatchObject({ status: "confirmed", txHash: signed.txHash, replacedTxHashes: [] });
  expect((await balanceOf(solana.customer.publicKey)) - customerBefore).toBe(50_000_000n);
});

test("one that truly expired unlanded, the account holding what it held at signing, is signed again once (the same blind node)", async () => {
  const { deposit, row, signed } = await signedRefund();
  const customerBefore = await balanceOf(solana.customer.publicKey);
  await until("its blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
  const blind = blindToStatuses();
  let again: string;
  try {
    // The blind node cannot confirm even the new one: the run ends waiting, the new signature recorded.
    await solanaChain.executeTransferOut(viaProxy(blind.url), row.id).catch(() => undefined);
    const after = (await findTransferOut(api.db, row.id))!;
    expect(after.replacedTxHashes).toEqual([signed.txHash]);
    expect(after.sourceBalance).toBe(150_000_000n);
    again = after.txHash!;
  } finally {
    blind.stop();
  }
  const done = await solanaChain.executeTransferOut(ctx(), row.id);
  expect(done).toMatchObject({ status: "confirmed", txHash: again });
  expect((await balanceOf(solana.customer.publicKey)) - customerBefore).toBe(50_000_000n);
  expect(await balanceOf(deposit.depositAddress)).toBe(100_000_000n);
});

test("money that arrived after signing changes the balance too: the expired one waits rather than risk a second transfer", async () => {
  const { deposit, row, signed } = await signedRefund();
  await solana.pay({ to: deposit.depositAddress, amount: 1_000_000n });
  await until("its blockhash to expire", async () => BigInt(await connection().getBlockHeight("finalized")) > signed.lastValidBlockHeight);
  const refused = await solanaChain.executeTransferOut(ctx(), row.id).then(() => null, (error: Error) => error.message);
  expect(refused).toContain("holds 151000000, not the 150000000 it held when transfer");
  expect(await findTransferOut(api.db, row.id)).toMatchObject({ status: "broadcast", txHash: signed.txHash, replacedTxHashes: [] });
  expect(await balanceOf(deposit.depositAddress)).toBe(151_000_000n);
});
