import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  getAccount,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transferChecked,
} from "@solana/spl-token";
import { Connection, Keypair, LAMPORTS_PER_SOL, type ParsedInstruction } from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "../solana/index.ts";

// A wallet paying a merchant in a USDC-like token through an unmodified web3.js Connection.
let chain: SolanaDevChain;
let connection: Connection;
let usdc: TestMint;
const customer = Keypair.generate();
const merchant = Keypair.generate();

beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 20, finalityDepth: 3 });
  connection = new Connection(chain.rpcUrl, "confirmed");
  usdc = await chain.createMint({ decimals: 6 });
});

afterAll(async () => {
  await chain.stop();
});

describe("a USDC payment through the devchain RPC", () => {
  let signature: string;
  let merchantAta: Awaited<ReturnType<typeof getOrCreateAssociatedTokenAccount>>;

  test("requestAirdrop funds the customer", async () => {
    const airdrop = await connection.requestAirdrop(customer.publicKey, 2 * LAMPORTS_PER_SOL);
    const latest = await connection.getLatestBlockhash();
    await connection.confirmTransaction({ signature: airdrop, ...latest });
    expect(await connection.getBalance(customer.publicKey)).toBe(2 * LAMPORTS_PER_SOL);
  });

  test("the wallet creates ATAs and pays with transferChecked", async () => {
    await chain.mintTo(usdc, customer.publicKey, 100_000_000n);
    merchantAta = await getOrCreateAssociatedTokenAccount(connection, customer, usdc.address, merchant.publicKey);
    const customerAta = getAssociatedTokenAddressSync(usdc.address, customer.publicKey);
    signature = await transferChecked(connection, customer, customerAta, usdc.address, merchantAta.address, customer, 12_345_678n, 6);
    const account = await getAccount(connection, merchantAta.address);
    expect(account.amount).toBe(12_345_678n);
  });

  test("getSignaturesForAddress(merchant ATA) finds the payment, newest first", async () => {
    const found = await connection.getSignaturesForAddress(merchantAta.address);
    expect(found[0]?.signature).toBe(signature);
    expect(found[0]?.err).toBeNull();
    expect(found.length).toBe(2); // the ATA creation, then the payment
    expect(typeof found[0]?.blockTime).toBe("number");
  });

  test("getTransaction gives pre/post token balances whose delta is the amount", async () => {
    const transaction = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    expect(transaction).not.toBeNull();
    const keys = transaction!.transaction.message.getAccountKeys().staticAccountKeys.map((key) => key.toBase58());
    const index = keys.indexOf(merchantAta.address.toBase58());
    const pre = transaction!.meta!.preTokenBalances!.find((balance) => balance.accountIndex === index)!;
    const post = transaction!.meta!.postTokenBalances!.find((balance) => balance.accountIndex === index)!;
    expect(pre.uiTokenAmount).toEqual({ amount: "0", decimals: 6, uiAmount: null, uiAmountString: "0" });
    expect(post.uiTokenAmount).toEqual({ amount: "12345678", decimals: 6, uiAmount: 12.345678, uiAmountString: "12.345678" });
    expect(post.owner).toBe(merchant.publicKey.toBase58());
    expect(post.mint).toBe(usdc.address.toBase58());
    expect(BigInt(post.uiTokenAmount.amount) - BigInt(pre.uiTokenAmount.amount)).toBe(12_345_678n);
    expect(transaction!.meta!.fee).toBe(5000);
    expect(transaction!.meta!.preBalances[0]! - transaction!.meta!.postBalances[0]!).toBe(5000);
    expect(transaction!.version).toBe("legacy");
  });

  test("getParsedTransaction parses transferChecked like a real node", async () => {
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const instruction = parsed!.transaction.message.instructions[0] as ParsedInstruction;
    expect(instruction.program).toBe("spl-token");
    expect(instruction.parsed).toEqual({
      type: "transferChecked",
      info: {
        source: getAssociatedTokenAddressSync(usdc.address, customer.publicKey).toBase58(),
        mint: usdc.address.toBase58(),
        destination: merchantAta.address.toBase58(),
        authority: customer.publicKey.toBase58(),
        tokenAmount: { amount: "12345678", decimals: 6, uiAmount: 12.345678, uiAmountString: "12.345678" },
      },
    });
  });

  test("a Connection without a commitment reads at finalized, as against a real node", async () => {
    const defaultConnection = new Connection(chain.rpcUrl);
    let found = await defaultConnection.getSignaturesForAddress(merchantAta.address, { limit: 1 });
    while (found[0]?.signature !== signature) {
      await Bun.sleep(10);
      found = await defaultConnection.getSignaturesForAddress(merchantAta.address, { limit: 1 });
    }
    expect(found[0]?.confirmationStatus).toBe("finalized");
    expect(chain.slot("finalized")).toBeGreaterThanOrEqual(found[0]!.slot);
  });

  test("batched requests (getParsedTransactions) are answered in order", async () => {
    const [creation] = (await connection.getSignaturesForAddress(merchantAta.address)).slice(-1);
    const parsed = await connection.getParsedTransactions([signature, creation!.signature], { maxSupportedTransactionVersion: 0 });
    expect(parsed.map((transaction) => transaction?.transaction.signatures[0])).toEqual([signature, creation!.signature]);
  });
});
