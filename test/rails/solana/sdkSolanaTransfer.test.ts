import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createAssociatedTokenAccountInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { queryRows } from "../../../db/client.ts";
import { payments } from "../../../db/schema/index.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * The published client SDK pays a Solana payment with its own transfer: `transfer`s from
 * the customer's token account to the merchant's associated token account (and to a fee
 * wallet's, when the payment has one), no Solana Pay reference, then posts the signature to
 * `/payments/process` as `{paymentId, transactionHash, network, senderAddress}`. Nothing in
 * it names the payment: the service recognises it by the transaction itself, counts the
 * balance rises, and lets one signature pay one payment only. Real SVM (litesvm) behind the
 * loopback RPC, real Postgres.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  solana = await startSolanaTestChain({ finalityDepth: 4 });
  api = await createTestApi({ networks: [solana.network], env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const headers = () => ({ "x-public-key": merchant.publicKey });
const mint = () => solana.usdc.address;
const ata = (owner: PublicKey) => getAssociatedTokenAddressSync(mint(), owner, true);

async function create(amount: string) {
  const response = await api.request("/api/payments/create", { headers: headers(), body: { amount, currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; merchantWallet: string; recipientWallet: string; coinleyWallet: string | null; merchantPercentage: number; coinleyPercentage: number; totalAmount: string; solanaPay: { reference: string } };
}

/** Sends instructions signed by `signers` (the first pays) and waits until confirmed. */
async function confirmed(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> {
  const signature = await solana.send(instructions, signers);
  solana.chain.advanceSlots(1);
  for (let i = 0; i < 200; i++) {
    const { value } = await solana.connection.getSignatureStatuses([signature]);
    if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") return signature;
    await Bun.sleep(25);
  }
  throw new Error(`${signature} not confirmed`);
}

/** The SDK's transaction (`sendSPLToken` / `sendSplitPayment`): plain `transfer`s from the customer's ATA, creating a recipient's ATA first when missing. */
async function sdkTransfer(legs: Array<{ to: PublicKey; amount: bigint }>, options: { from?: Keypair; extraKey?: string } = {}): Promise<string> {
  const from = options.from ?? solana.customer;
  const instructions: TransactionInstruction[] = [];
  for (const leg of legs) {
    if (!(await solana.connection.getAccountInfo(ata(leg.to)))) instructions.push(createAssociatedTokenAccountInstruction(from.publicKey, ata(leg.to), leg.to, mint()));
  }
  for (const leg of legs) {
    const transfer = createTransferInstruction(ata(from.publicKey), ata(leg.to), from.publicKey, leg.amount);
    if (options.extraKey) transfer.keys.push({ pubkey: new PublicKey(options.extraKey), isSigner: false, isWritable: false });
    instructions.push(transfer);
  }
  return confirmed(instructions, [from]);
}

/** `POST /api/payments/process` with the SDK's body. */
const processed = (paymentId: string, transactionHash: string, senderAddress = solana.customer.publicKey.toBase58()) =>
  api.request("/api/payments/process", { headers: headers(), body: { paymentId, transactionHash, network: "solana-local", senderAddress } });

const creditsOf = (id: string) => queryRows<{ account: string; amount: string; found_by: string }>(api.db, sql`select account, amount::text, found_by from solana_credits where payment_id = ${id} order by account_index`);

describe("the SDK's transfer pays a Solana payment", () => {
  test("the payment view tells the SDK: all of it to the merchant, no fee wallet on Solana", async () => {
    const payment = await create("4");
    expect(payment).toMatchObject({ merchantWallet: solana.merchant.publicKey.toBase58(), recipientWallet: solana.merchant.publicKey.toBase58(), totalAmount: "4", merchantPercentage: 10_000, coinleyPercentage: 0, coinleyWallet: null });
  });

  test("one transfer to the merchant, no reference: processed with the SDK's body, credited by the merchant's balance rise", async () => {
    const payment = await create("12.5");
    const signature = await sdkTransfer([{ to: solana.merchant.publicKey, amount: 12_500_000n }]);
    const response = await processed(payment.id, signature);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ success: true, payment: { status: "confirming", amountReceived: "12.5", transactionHash: signature } });
    expect(await creditsOf(payment.id)).toEqual([{ account: ata(solana.merchant.publicKey).toBase58(), amount: "12500000", found_by: "submission" }]);
  });

  test("a split to the merchant and the payment's fee wallet: both rises count", async () => {
    const payment = await create("10");
    const feeWallet = Keypair.generate().publicKey;
    // A payment with a fee wallet on Solana (the service sets none today; the rule is ready for one).
    await api.db.update(payments).set({ feeRecipient: feeWallet.toBase58() }).where(eq(payments.id, payment.id));
    const signature = await sdkTransfer([
      { to: solana.merchant.publicKey, amount: 9_825_000n },
      { to: feeWallet, amount: 175_000n },
    ]);
    const response = await processed(payment.id, signature);
    expect(response.body.payment).toMatchObject({ status: "confirming", amountReceived: "10", transactionHash: signature });
    expect((await creditsOf(payment.id)).map((c) => c.amount).sort()).toEqual(["175000", "9825000"]);
  });

  test("a split whose second leg goes to a wallet the payment does not name: not the SDK's transfer for it, 400", async () => {
    const payment = await create("10");
    const signature = await sdkTransfer([
      { to: solana.merchant.publicKey, amount: 9_000_000n },
      { to: Keypair.generate().publicKey, amount: 1_000_000n },
    ]);
    // The stranger's wallet is a key the SDK's transfer for this payment would not have: not the SDK's transfer at all.
    const response = await processed(payment.id, signature);
    expect(response.status).toBe(400);
    expect(await creditsOf(payment.id)).toEqual([]);
  });
});

describe("one signature, one payment", () => {
  test("the same signature submitted for a second payment of the same amount: 400, the first keeps it", async () => {
    const [a, b] = [await create("3"), await create("3")];
    const signature = await sdkTransfer([{ to: solana.merchant.publicKey, amount: 3_000_000n }]);
    expect((await processed(a.id, signature)).status).toBe(200);
    const second = await processed(b.id, signature);
    expect(second.status).toBe(400);
    expect(second.body.message).toContain(`does not pay payment ${b.id}`);
    expect((await creditsOf(a.id)).length).toBe(1);
    expect(await creditsOf(b.id)).toEqual([]);
  });

  test("two payments racing for one signature: exactly one is credited", async () => {
    const [a, b, c] = [await create("2"), await create("2"), await create("2")];
    const signature = await sdkTransfer([{ to: solana.merchant.publicKey, amount: 2_000_000n }]);
    const answers = await Promise.all([a, b, c].map((p) => processed(p.id, signature)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    const credited = (await Promise.all([a, b, c].map((p) => creditsOf(p.id)))).filter((rows) => rows.length > 0);
    expect(credited.length).toBe(1);
  });

  test("a Solana Pay transfer carrying another payment's reference is not the SDK's: it cannot be taken from that payment", async () => {
    const [victim, thief] = [await create("6"), await create("6")];
    const signature = await solana.pay({ to: solana.merchant.publicKey, amount: 6_000_000n, reference: victim.solanaPay.reference });
    const stolen = await processed(thief.id, signature);
    expect(stolen.status).toBe(400);
    expect(await creditsOf(thief.id)).toEqual([]);
    const own = await processed(victim.id, signature);
    expect(own.body.payment).toMatchObject({ status: "confirming", amountReceived: "6" });
  });
});

describe("not the SDK's transfer for this payment", () => {
  test("made before the payment existed: 400", async () => {
    const signature = await sdkTransfer([{ to: solana.merchant.publicKey, amount: 8_000_000n }]);
    const payment = await create("8");
    // As if the payment had been created five minutes after the transfer.
    await api.db.update(payments).set({ createdAt: sql`now() + interval '5 minutes'` }).where(eq(payments.id, payment.id));
    expect((await processed(payment.id, signature)).status).toBe(400);
    expect(await creditsOf(payment.id)).toEqual([]);
  });

  test("the merchant moving its own money to its wallet: 400", async () => {
    const payment = await create("1");
    // The merchant, funded by the customer, sends from its own (other) account to its wallet's ATA.
    const other = Keypair.generate();
    await solana.chain.airdrop(other.publicKey, 1_000_000_000n);
    await sdkTransfer([{ to: other.publicKey, amount: 1_000_000n }]);
    await solana.chain.airdrop(solana.merchant.publicKey, 1_000_000_000n);
    const signature = await confirmed(
      [createTransferInstruction(ata(other.publicKey), ata(solana.merchant.publicKey), other.publicKey, 1_000_000n)],
      [solana.merchant, other],
    );
    expect((await processed(payment.id, signature)).status).toBe(400);
    expect(await creditsOf(payment.id)).toEqual([]);
  });

  test("a network that is not the payment's: 400 naming network", async () => {
    const payment = await create("1");
    const response = await api.request("/api/payments/process", { headers: headers(), body: { paymentId: payment.id, transactionHash: "1".repeat(88), network: "ethereum" } });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain("'network'");
  });
});
