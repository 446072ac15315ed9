import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, LAMPORTS_PER_SOL, NONCE_ACCOUNT_LENGTH, NonceAccount, SendTransactionError, SystemProgram, Transaction } from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "../solana/index.ts";

// Slots only move when the test says so (slotMs: 0), so each commitment step is exact.
let chain: SolanaDevChain;
let connection: Connection;
let usdc: TestMint;
let customer: Keypair;
const merchant = Keypair.generate();

beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 0, finalityDepth: 3 });
  connection = new Connection(chain.rpcUrl, "confirmed");
  usdc = await chain.createMint();
  await chain.mintTo(usdc, merchant.publicKey, 0n);
  ({ keypair: customer } = await chain.createFundedCustomer({ tokens: [{ mint: usdc, amount: 5_000_000n }] }));
  chain.finalize();
});

afterAll(async () => {
  await chain.stop();
});

function payment(amount: bigint): Transaction {
  return new Transaction().add(
    createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(usdc.address, customer.publicKey),
      usdc.address,
      getAssociatedTokenAddressSync(usdc.address, merchant.publicKey),
      customer.publicKey,
      amount,
      6,
    ),
  );
}

describe("commitment levels follow slot production", () => {
  test("processed → confirmed after one slot → finalized after finalityDepth slots", async () => {
    const merchantAta = getAssociatedTokenAddressSync(usdc.address, merchant.publicKey);
    const signature = await connection.sendTransaction(payment(1_000_000n), [customer]);
    const slot = chain.slot();

    const processed = (await connection.getSignatureStatuses([signature])).value[0];
    expect(processed).toEqual({ slot, confirmations: 0, err: null, confirmationStatus: "processed", status: { Ok: null } } as never);
    expect(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" })).toBeNull();
    expect(await connection.getSignaturesForAddress(merchantAta, {}, "confirmed")).toHaveLength(1); // only the ATA creation
    expect((await connection.getTokenAccountBalance(merchantAta, "processed")).value.amount).toBe("1000000");
    expect((await connection.getTokenAccountBalance(merchantAta, "confirmed")).value.amount).toBe("0");

    chain.advanceSlots(1);
    const confirmed = (await connection.getSignatureStatuses([signature])).value[0];
    expect(confirmed?.confirmationStatus).toBe("confirmed");
    expect(confirmed?.confirmations).toBe(1);
    expect(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" })).not.toBeNull();
    expect(await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "finalized" })).toBeNull();
    expect((await connection.getTokenAccountBalance(merchantAta, "confirmed")).value.amount).toBe("1000000");
    expect((await connection.getTokenAccountBalance(merchantAta, "finalized")).value.amount).toBe("0");
    const [newest] = await connection.getSignaturesForAddress(merchantAta, {}, "confirmed");
    expect(newest).toMatchObject({ signature, slot, confirmationStatus: "confirmed" });

    chain.advanceSlots(2);
    const finalized = (await connection.getSignatureStatuses([signature])).value[0];
    expect(finalized).toEqual({ slot, confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } } as never);
    expect((await connection.getTokenAccountBalance(merchantAta, "finalized")).value.amount).toBe("1000000");
    expect((await connection.getSignaturesForAddress(merchantAta, {}, "finalized"))[0]?.signature).toBe(signature);
  });

  test("each commitment sees its own slot and blockhash", async () => {
    const tip = chain.advanceSlots(1);
    expect(await connection.getSlot("processed")).toBe(tip);
    expect(await connection.getSlot("confirmed")).toBe(tip - 1);
    expect(await connection.getSlot("finalized")).toBe(tip - 3);
    expect(await connection.getBlockHeight("processed")).toBe(tip);
    const processed = await connection.getLatestBlockhash("processed");
    const finalized = await connection.getLatestBlockhash("finalized");
    expect(processed.blockhash).not.toBe(finalized.blockhash);
    expect(processed.lastValidBlockHeight).toBe(tip + 150);
    expect(finalized.lastValidBlockHeight).toBe(tip - 3 + 150);
    const block = await connection.getBlock(tip - 3, { maxSupportedTransactionVersion: 0, commitment: "finalized" });
    expect(block?.blockhash).toBe(finalized.blockhash);
    expect(await connection.getBlockTime(tip)).toBeCloseTo(Date.now() / 1000, -1);
  });

  test("before/until/limit page through an account's signatures", async () => {
    const signatures: string[] = [];
    for (let i = 0; i < 4; i++) {
      signatures.push(await connection.sendTransaction(payment(10n), [customer]));
      chain.advanceSlots(1);
    }
    const merchantAta = getAssociatedTokenAddressSync(usdc.address, merchant.publicKey);
    const page = await connection.getSignaturesForAddress(merchantAta, { limit: 2 });
    expect(page.map((entry) => entry.signature)).toEqual([signatures[3]!, signatures[2]!]);
    const next = await connection.getSignaturesForAddress(merchantAta, { limit: 2, before: signatures[2] });
    expect(next.map((entry) => entry.signature)).toEqual([signatures[1]!, signatures[0]!]);
    const until = await connection.getSignaturesForAddress(merchantAta, { until: signatures[1] });
    expect(until.map((entry) => entry.signature)).toEqual([signatures[3]!, signatures[2]!]);
  });
});

describe("failures a wallet meets", () => {
  test("a failed payment (insufficient funds) lands with err, fee charged, token balances unchanged", async () => {
    const signature = await connection.sendTransaction(payment(50_000_000n), [customer], { skipPreflight: true });
    chain.advanceSlots(1);
    const transaction = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(transaction?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(transaction?.meta?.preTokenBalances).toEqual(transaction!.meta!.postTokenBalances!);
    expect(transaction!.meta!.preBalances[0]! - transaction!.meta!.postBalances[0]!).toBe(5000);
    expect(transaction?.meta?.logMessages).toContain("Program log: Error: insufficient funds");
    const [status] = (await connection.getSignatureStatuses([signature])).value;
    expect(status?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    const merchantAta = getAssociatedTokenAddressSync(usdc.address, merchant.publicKey);
    expect((await connection.getSignaturesForAddress(merchantAta, { limit: 1 }))[0]).toMatchObject({
      signature,
      err: { InstructionError: [0, { Custom: 1 }] },
    });
  });

  test("with preflight, the same payment is refused with the node's error and logs", async () => {
    const error = await connection.sendTransaction(payment(50_000_000n), [customer]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SendTransactionError);
    const sendError = error as SendTransactionError;
    expect(sendError.transactionError.message).toBe("Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1");
    expect(await sendError.getLogs(connection)).toContain("Program log: Error: insufficient funds");
  });

  test("an expired blockhash is refused as on a real cluster", async () => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("processed");
    const transaction = new Transaction({ feePayer: customer.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: LAMPORTS_PER_SOL / 100 }),
    );
    transaction.sign(customer);
    expect((await connection.isBlockhashValid(blockhash, { commitment: "processed" })).value).toBe(true);
    chain.advanceSlots(151);
    expect((await connection.isBlockhashValid(blockhash, { commitment: "processed" })).value).toBe(false);
    expect(await connection.getBlockHeight("processed")).toBeGreaterThan(lastValidBlockHeight);
    const error = await connection.sendRawTransaction(transaction.serialize()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SendTransactionError);
    expect((error as SendTransactionError).transactionError.message).toBe("Transaction simulation failed: Blockhash not found");
    // Without preflight the node takes it, and it never lands.
    const signature = await connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
    chain.advanceSlots(1);
    expect((await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0]).toBeNull();
  });

  test("a durable-nonce transaction is accepted long after blockhashes expire", async () => {
    const nonce = Keypair.generate();
    const lamports = await connection.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH);
    const create = SystemProgram.createNonceAccount({ fromPubkey: customer.publicKey, noncePubkey: nonce.publicKey, authorizedPubkey: customer.publicKey, lamports });
    // web3.js reuses a fetched blockhash for 30 s, and this file jumps 150+ slots at once: fetch a fresh one.
    const fresh = new Transaction({ ...(await connection.getLatestBlockhash("processed")), feePayer: customer.publicKey }).add(create);
    fresh.sign(customer, nonce);
    await connection.sendRawTransaction(fresh.serialize());
    chain.advanceSlots(1);
    const stored = NonceAccount.fromAccountData((await connection.getAccountInfo(nonce.publicKey))!.data).nonce;
    const transaction = new Transaction({
      feePayer: customer.publicKey,
      nonceInfo: { nonce: stored, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: customer.publicKey }) },
    }).add(SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: 1_000_000 }));
    transaction.sign(customer);
    chain.advanceSlots(200);
    const signature = await connection.sendRawTransaction(transaction.serialize());
    chain.advanceSlots(1);
    expect((await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta?.err).toBeNull();
    expect(NonceAccount.fromAccountData((await connection.getAccountInfo(nonce.publicKey))!.data).nonce).not.toBe(stored);
    // The nonce moved on, so the same transaction cannot land twice.
    const replay = await connection.sendRawTransaction(transaction.serialize()).catch((caught: unknown) => caught);
    expect((replay as SendTransactionError).transactionError.message).toBe("Transaction simulation failed: This transaction has already been processed");
  });
});
