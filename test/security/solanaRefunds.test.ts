import { afterAll, beforeAll, expect, test } from "bun:test";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { refundMessage } from "../../payouts/index.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { sql } from "drizzle-orm";
import { until } from "../../harness/until.ts";

/**
 * Refunds of a Solana deposit address tried as a stranger would, on the local Solana chain
 * with the subscriber and the workers running: the payer is the owner of the token account
 * the money left (recorded with the credit), a stranger's address gets nothing, the
 * customer's own request gets the excess back, and a `signMessage` signature by the payer
 * sends it elsewhere.
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
const publicKey = () => ({ "x-public-key": merchant.publicKey });
const connection = () => new Connection(solana.chain.rpcUrl, "confirmed");
const tokenBalance = (owner: PublicKey | string) =>
  getAccount(connection(), getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(owner), true)).then((a) => a.amount, () => 0n);

const depositStatus = async (id: string) => (await api.request(`/api/v1/deposits/status/${id}`, { headers: publicKey() })).body.payment;

/** A 10 USDC deposit the customer paid 12, swept: 2 owed back, held at the deposit's account. */
async function overpaid() {
  const created = await api.request("/api/v1/deposits/create", { headers: publicKey(), body: { amount: "10", currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() } });
  expect(created.status).toBe(201);
  const deposit = created.body.payment as { id: string; depositAddress: string };
  await solana.pay({ to: deposit.depositAddress, amount: 12_000_000n });
  await until("the sweep", async () => {
    const status = await depositStatus(deposit.id);
    return status.sweeps?.[0]?.status === "confirmed" && status.excessOwed === "2";
  });
  return deposit;
}

const refunded = (id: string) => until("the refund", async () => ((await depositStatus(id)).refunds?.[0]?.status === "confirmed" ? true : undefined));
/** `keypair`'s `signMessage` of the text, in base58 (a wallet's Uint8Array, encoded). */
const signMessage = (keypair: Keypair, text: string) => base58.encode(ed25519.sign(new TextEncoder().encode(text), keypair.secretKey.slice(0, 32)));
const message = (id: string, to: string, amount: string) => refundMessage({ paymentId: id, to, amount, token: "USDC", network: network().name, chainId: network().chainId });

test("the credit names the payer: the owner of the token account the money left", async () => {
  const deposit = await overpaid();
  const rows = await queryRows<{ payer: string | null }>(api.db, sql`select payer from solana_credits where payment_id = ${deposit.id}`);
  expect(rows).toEqual([{ payer: solana.customer.publicKey.toBase58() }]);
  // Then a stranger's address, at both doors, sends nothing; the customer's own request sends the excess back to the paying wallet.
  const strangers = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()];
  const asked = [
    await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: strangers[0] } }),
    await api.request(`/api/deposits/refund-request/${deposit.id}`, { headers: publicKey(), body: { address: strangers[1] } }),
  ];
  expect(asked.map((a) => [a.status, a.body.refundRequest?.status, a.body.refund])).toEqual([
    [202, "awaiting_approval", undefined],
    [202, "awaiting_approval", undefined],
  ]);
  expect((await depositStatus(deposit.id)).refunds).toEqual([]);
  const before = await tokenBalance(solana.customer.publicKey);
  const own = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
  expect(own.status).toBe(202);
  expect(own.body.refund).toMatchObject({ amount: "2", to: solana.customer.publicKey.toBase58() });
  await refunded(deposit.id);
  expect((await tokenBalance(solana.customer.publicKey)) - before).toBe(2_000_000n);
  for (const address of strangers) expect(await tokenBalance(address)).toBe(0n);
}, 90_000);

test("a payer's signMessage signature sends the refund elsewhere; a stranger's signature is refused", async () => {
  const deposit = await overpaid();
  const elsewhere = Keypair.generate().publicKey.toBase58();
  const attacker = Keypair.generate();
  const forged = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, {
    body: { address: attacker.publicKey.toBase58(), amount: "2", signature: signMessage(attacker, message(deposit.id, attacker.publicKey.toBase58(), "2")) },
  });
  expect([forged.status, forged.body.error]).toEqual([403, "refund_signature_invalid"]);
  const signed = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, {
    body: { address: elsewhere, amount: "2", signature: signMessage(solana.customer, message(deposit.id, elsewhere, "2")) },
  });
  expect(signed.status).toBe(202);
  expect(signed.body.refundRequest).toMatchObject({ status: "sent", authorizedBy: "signature", signer: solana.customer.publicKey.toBase58() });
  await refunded(deposit.id);
  expect(await tokenBalance(elsewhere)).toBe(2_000_000n);
  expect(await tokenBalance(attacker.publicKey)).toBe(0n);
}, 90_000);
