import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getBase58Decoder } from "@solana/kit";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import {
  AddressLookupTableProgram,
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type ParsedInstruction,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "../solana/index.ts";

const memoProgram = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
let chain: SolanaDevChain;
let connection: Connection;
let usdc: TestMint;
let customer: Keypair;
const merchant = Keypair.generate();

beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 20, finalityDepth: 2 });
  connection = new Connection(chain.rpcUrl, "confirmed");
  usdc = await chain.createMint();
  ({ keypair: customer } = await chain.createFundedCustomer({ tokens: [{ mint: usdc, amount: 20_000_000n }] }));
});

afterAll(async () => {
  await chain.stop();
});

async function confirmed(signature: string): Promise<string> {
  const latest = await connection.getLatestBlockhash();
  const result = await connection.confirmTransaction({ signature, ...latest }, "confirmed");
  expect(result.value.err).toBeNull();
  return signature;
}

describe("jsonParsed instructions as real nodes parse them", () => {
  test("ATA createIdempotent (with its inner instructions), system transfer and memo", async () => {
    const merchantAta = getAssociatedTokenAddressSync(usdc.address, merchant.publicKey);
    const transaction = new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(customer.publicKey, merchantAta, merchant.publicKey, usdc.address),
      SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: LAMPORTS_PER_SOL / 10 }),
      new TransactionInstruction({ programId: memoProgram, keys: [], data: Buffer.from("order-12345") }),
    );
    const signature = await confirmed(await connection.sendTransaction(transaction, [customer]));
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const [create, transfer, memo] = parsed!.transaction.message.instructions as ParsedInstruction[];
    expect(create).toMatchObject({
      program: "spl-associated-token-account",
      parsed: {
        type: "createIdempotent",
        info: {
          source: customer.publicKey.toBase58(),
          account: merchantAta.toBase58(),
          wallet: merchant.publicKey.toBase58(),
          mint: usdc.address.toBase58(),
          systemProgram: SystemProgram.programId.toBase58(),
          tokenProgram: TOKEN_PROGRAM_ID.toBase58(),
        },
      },
    });
    expect(transfer).toMatchObject({
      program: "system",
      parsed: { type: "transfer", info: { source: customer.publicKey.toBase58(), destination: merchant.publicKey.toBase58(), lamports: LAMPORTS_PER_SOL / 10 } },
    });
    expect(memo).toMatchObject({ program: "spl-memo", parsed: "order-12345" });
    const inner = parsed!.meta!.innerInstructions!.find((entry) => entry.index === 0)!.instructions as ParsedInstruction[];
    expect(inner.map((instruction) => (instruction.parsed as { type: string }).type)).toEqual([
      "getAccountDataSize",
      "createAccount",
      "initializeImmutableOwner",
      "initializeAccount3",
    ]);
    expect(inner[3]!.parsed.info).toEqual({ account: merchantAta.toBase58(), mint: usdc.address.toBase58(), owner: merchant.publicKey.toBase58() });

    const [entry] = await connection.getSignaturesForAddress(merchant.publicKey, { limit: 1 });
    expect(entry).toMatchObject({ signature, memo: "[11] order-12345" });

    const raw = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(raw!.meta!.innerInstructions![0]!.instructions).toHaveLength(4);
    expect(raw!.meta!.computeUnitsConsumed).toBeGreaterThan(0);
    expect(raw!.meta!.loadedAddresses).toEqual({ writable: [], readonly: [] });
  });
});

describe("a v0 transaction with an address lookup table", () => {
  test("loads the recipient from the table; history, balances and parsing follow the loaded keys", async () => {
    const merchantAta = getAssociatedTokenAddressSync(usdc.address, merchant.publicKey);
    const recentSlot = await connection.getSlot("finalized");
    const [createTable, table] = AddressLookupTableProgram.createLookupTable({ authority: customer.publicKey, payer: customer.publicKey, recentSlot });
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: customer.publicKey,
      payer: customer.publicKey,
      addresses: [merchantAta, usdc.address],
    });
    await confirmed(await connection.sendTransaction(new Transaction().add(createTable, extend), [customer]));
    chain.advanceSlots(1); // lookup table entries are usable from the slot after they were added
    const lookupTable = (await connection.getAddressLookupTable(table)).value!;
    expect(lookupTable.state.addresses.map((key) => key.toBase58())).toEqual([merchantAta.toBase58(), usdc.address.toBase58()]);

    const { blockhash } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: customer.publicKey,
      recentBlockhash: blockhash,
      instructions: [createTransferCheckedInstruction(getAssociatedTokenAddressSync(usdc.address, customer.publicKey), usdc.address, merchantAta, customer.publicKey, 7_000_000n, 6)],
    }).compileToV0Message([lookupTable]);
    const transaction = new VersionedTransaction(message);
    transaction.sign([customer]);
    const simulation = await connection.simulateTransaction(transaction, { accounts: { encoding: "base64", addresses: [merchantAta.toBase58()] } });
    expect(simulation.value.err).toBeNull();
    expect(simulation.value.accounts?.[0]?.owner).toBe(TOKEN_PROGRAM_ID.toBase58());
    const signature = await confirmed(await connection.sendTransaction(transaction));

    const found = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(found!.version).toBe(0);
    expect(found!.meta!.loadedAddresses!.writable.map((key) => key.toBase58())).toEqual([merchantAta.toBase58()]);
    expect(found!.meta!.loadedAddresses!.readonly.map((key) => key.toBase58())).toEqual([usdc.address.toBase58()]);
    const keys = found!.transaction.message.getAccountKeys({ accountKeysFromLookups: found!.meta!.loadedAddresses! });
    const merchantIndex = keys.keySegments().flat().findIndex((key) => key.equals(merchantAta));
    expect(merchantIndex).toBeGreaterThanOrEqual(found!.transaction.message.staticAccountKeys.length);
    const post = found!.meta!.postTokenBalances!.find((balance) => balance.accountIndex === merchantIndex);
    const pre = found!.meta!.preTokenBalances!.find((balance) => balance.accountIndex === merchantIndex);
    expect(BigInt(post!.uiTokenAmount.amount) - BigInt(pre!.uiTokenAmount.amount)).toBe(7_000_000n);

    expect((await connection.getSignaturesForAddress(merchantAta, { limit: 1 }))[0]?.signature).toBe(signature);
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(parsed!.transaction.message.accountKeys.find((key) => key.pubkey.equals(merchantAta))).toMatchObject({ writable: true, signer: false, source: "lookupTable" });
    expect((parsed!.transaction.message.instructions[0] as ParsedInstruction).parsed.info.destination).toBe(merchantAta.toBase58());

    // A client that does not declare v0 support is told so, like a real node tells it.
    await expect(connection.getTransaction(signature)).rejects.toThrow("Transaction version (0) is not supported by the requesting client");
  });
});

describe("fees", () => {
  test.each([
    ["no priority fee", [], 5000],
    ["price and limit", [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1000 }), ComputeBudgetProgram.setComputeUnitLimit({ units: 50_000 })], 5050],
    ["price only (default limit)", [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 })], 11_000],
  ])("%s: meta.fee is what the payer paid", async (_label, budget, fee) => {
    const transaction = new Transaction().add(...budget, SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: 1_000_000 }));
    const signature = await confirmed(await connection.sendTransaction(transaction, [customer]));
    const found = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(found!.meta!.fee).toBe(fee);
    expect(found!.meta!.preBalances[0]! - found!.meta!.postBalances[0]!).toBe(fee + 1_000_000);
    expect((await connection.getFeeForMessage(transaction.compileMessage(), "confirmed")).value).toBe(fee);
  });
});

describe("raw JSON-RPC details", () => {
  async function rpc(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
    const response = await fetch(chain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
    return (await response.json()) as never;
  }

  test("sendTransaction takes base58 by default; errors carry real codes", async () => {
    const transaction = new Transaction({ ...(await connection.getLatestBlockhash()), feePayer: customer.publicKey }).add(
      SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: 1_000_000 }),
    );
    transaction.sign(customer);
    const bs58 = getBase58Decoder();
    const sent = await rpc("sendTransaction", [bs58.decode(transaction.serialize())]);
    expect(sent.result).toBe(bs58.decode(transaction.signature!));
    expect((await rpc("sendTransaction", [bs58.decode(transaction.serialize())])).error).toMatchObject({
      code: -32002,
      message: "Transaction simulation failed: This transaction has already been processed",
    });
    const forged = Buffer.from(transaction.serialize());
    forged[1]! ^= 0xff;
    expect((await rpc("sendTransaction", [forged.toString("base64"), { encoding: "base64" }])).error).toEqual({ code: -32003, message: "Transaction signature verification failure" });
    expect((await rpc("getTransaction", ["1111111111111111111111111111111111111111111111111111111111111111", { commitment: "processed" }])).error?.code).toBe(-32602);
    expect((await rpc("noSuchMethod", [])).error).toEqual({ code: -32601, message: "Method not found" });
    expect((await rpc("getHealth", [])).result).toBe("ok");
    expect((await rpc("getFeeForMessage", [transaction.serializeMessage().toString("base64"), { commitment: "processed" }])).result).toMatchObject({ value: 5000 });
  });

  test("getBlock lists the slot's transactions", async () => {
    const signature = await confirmed(
      await connection.sendTransaction(new Transaction().add(SystemProgram.transfer({ fromPubkey: customer.publicKey, toPubkey: merchant.publicKey, lamports: 5000 })), [customer]),
    );
    const { slot } = (await connection.getSignatureStatus(signature)).value!;
    const block = await connection.getBlock(slot, { maxSupportedTransactionVersion: 0 });
    expect(block!.transactions.map((entry) => entry.transaction.signatures[0])).toContain(signature);
    expect(block!.parentSlot).toBe(slot - 1);
    const signaturesOnly = await connection.getBlockSignatures(slot); // transactionDetails: "signatures"
    expect(signaturesOnly.signatures).toContain(signature);
  });
});
