import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  calculateEpochFee,
  closeAccount,
  createAccount,
  getAssociatedTokenAddressSync,
  getMint,
  getOrCreateAssociatedTokenAccount,
  getTransferFeeConfig,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  transferChecked,
  transferCheckedWithFee,
} from "@solana/spl-token";
import { Connection, Keypair, type ParsedAccountData, type ParsedInstruction, type PublicKey, type TokenBalance, type VersionedTransactionResponse } from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "../solana/index.ts";

let chain: SolanaDevChain;
let connection: Connection;
let customer: Keypair;
let feeMint: TestMint;
let usdc: TestMint;
const merchant = Keypair.generate();

beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 20, finalityDepth: 2 });
  connection = new Connection(chain.rpcUrl, "confirmed");
  usdc = await chain.createMint();
  feeMint = await chain.createMint({ tokenProgram: "token-2022", transferFee: { basisPoints: 100, maximumFee: 1_000_000n } });
  ({ keypair: customer } = await chain.createFundedCustomer({
    tokens: [
      { mint: feeMint, amount: 100_000_000n },
      { mint: usdc, amount: 10_000_000n },
    ],
  }));
});

afterAll(async () => {
  await chain.stop();
});

/** post − pre token amount of one account in a transaction's meta (smallest units). */
function tokenDelta(transaction: VersionedTransactionResponse | null, account: PublicKey): bigint {
  const keys = transaction!.transaction.message.getAccountKeys().staticAccountKeys.map((key) => key.toBase58());
  const index = keys.indexOf(account.toBase58());
  const amountIn = (balances: TokenBalance[] | null | undefined) =>
    BigInt(balances?.find((balance) => balance.accountIndex === index)?.uiTokenAmount.amount ?? "0");
  return amountIn(transaction!.meta!.postTokenBalances) - amountIn(transaction!.meta!.preTokenBalances);
}

describe("Token-2022 with a transfer fee", () => {
  let merchantAta: PublicKey;

  beforeAll(async () => {
    merchantAta = (await getOrCreateAssociatedTokenAccount(connection, customer, feeMint.address, merchant.publicKey, false, undefined, undefined, TOKEN_2022_PROGRAM_ID)).address;
  });

  test("the recipient's balance delta is the amount minus the fee, not the instruction amount", async () => {
    const source = getAssociatedTokenAddressSync(feeMint.address, customer.publicKey, false, TOKEN_2022_PROGRAM_ID);
    const signature = await transferChecked(connection, customer, source, feeMint.address, merchantAta, customer, 10_000_000n, 6, [], undefined, TOKEN_2022_PROGRAM_ID);
    const transaction = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(tokenDelta(transaction, merchantAta)).toBe(9_900_000n);
    expect(tokenDelta(transaction, source)).toBe(-10_000_000n);
    const post = transaction!.meta!.postTokenBalances!.find((balance) => balance.owner === merchant.publicKey.toBase58());
    expect(post?.programId).toBe(TOKEN_2022_PROGRAM_ID.toBase58());

    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const instruction = parsed!.transaction.message.instructions[0] as ParsedInstruction;
    expect(instruction.program).toBe("spl-token");
    expect(instruction.programId.equals(TOKEN_2022_PROGRAM_ID)).toBe(true);
    expect((instruction.parsed as { info: { tokenAmount: { amount: string } } }).info.tokenAmount.amount).toBe("10000000");
  });

  test("transferCheckedWithFee is parsed with its fee", async () => {
    const mint = await getMint(connection, feeMint.address, undefined, TOKEN_2022_PROGRAM_ID);
    const fee = calculateEpochFee(getTransferFeeConfig(mint)!, BigInt((await connection.getEpochInfo()).epoch), 5_000_000n);
    expect(fee).toBe(50_000n);
    const source = getAssociatedTokenAddressSync(feeMint.address, customer.publicKey, false, TOKEN_2022_PROGRAM_ID);
    const signature = await transferCheckedWithFee(connection, customer, source, feeMint.address, merchantAta, customer, 5_000_000n, 6, fee, [], undefined, TOKEN_2022_PROGRAM_ID);
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect((parsed!.transaction.message.instructions[0] as ParsedInstruction).parsed).toEqual({
      type: "transferCheckedWithFee",
      info: {
        source: source.toBase58(),
        mint: feeMint.address.toBase58(),
        destination: merchantAta.toBase58(),
        authority: customer.publicKey.toBase58(),
        tokenAmount: { amount: "5000000", decimals: 6, uiAmount: 5, uiAmountString: "5" },
        feeAmount: { amount: "50000", decimals: 6, uiAmount: 0.05, uiAmountString: "0.05" },
      },
    });
  });

  test("jsonParsed accounts show the mint's fee config and the withheld fees", async () => {
    const mintInfo = (await connection.getParsedAccountInfo(feeMint.address)).value!.data as ParsedAccountData;
    expect(mintInfo.program).toBe("spl-token-2022");
    expect(mintInfo.parsed.type).toBe("mint");
    expect(mintInfo.parsed.info.decimals).toBe(6);
    expect(mintInfo.parsed.info.extensions[0].extension).toBe("transferFeeConfig");
    expect(mintInfo.parsed.info.extensions[0].state.newerTransferFee).toEqual({ epoch: 0, maximumFee: 1_000_000, transferFeeBasisPoints: 100 });

    const accountInfo = (await connection.getParsedAccountInfo(merchantAta)).value!.data as ParsedAccountData;
    expect(accountInfo.parsed.type).toBe("account");
    expect(accountInfo.parsed.info.tokenAmount.amount).toBe("14850000");
    expect(accountInfo.parsed.info.owner).toBe(merchant.publicKey.toBase58());
    expect(accountInfo.parsed.info.extensions).toContainEqual({ extension: "immutableOwner" });
    expect(accountInfo.parsed.info.extensions).toContainEqual({ extension: "transferFeeAmount", state: { withheldAmount: 150_000 } });

    const byOwner = await connection.getParsedTokenAccountsByOwner(merchant.publicKey, { programId: TOKEN_2022_PROGRAM_ID });
    expect(byOwner.value.map((entry) => entry.pubkey.toBase58())).toEqual([merchantAta.toBase58()]);
    const byMint = await connection.getTokenAccountsByOwner(merchant.publicKey, { mint: feeMint.address });
    expect(byMint.value).toHaveLength(1);
    expect((await connection.getTokenSupply(feeMint.address)).value.amount).toBe("100000000");
  });
});

describe("closing a token account", () => {
  test("closeAccount returns the rent to the destination and drops the account's token balance", async () => {
    const holder = Keypair.generate();
    const rentCollector = Keypair.generate();
    const account = await createAccount(connection, customer, usdc.address, holder.publicKey, undefined, undefined, TOKEN_PROGRAM_ID);
    const rent = await connection.getMinimumBalanceForRentExemption(165);
    expect(await connection.getBalance(account)).toBe(rent);
    const signature = await closeAccount(connection, customer, account, rentCollector.publicKey, holder);
    expect(await connection.getBalance(rentCollector.publicKey)).toBe(rent);
    expect(await connection.getAccountInfo(account)).toBeNull();

    const transaction = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const keys = transaction!.transaction.message.getAccountKeys().staticAccountKeys.map((key) => key.toBase58());
    const index = keys.indexOf(account.toBase58());
    expect(transaction!.meta!.preBalances[index]).toBe(rent);
    expect(transaction!.meta!.postBalances[index]).toBe(0);
    expect(transaction!.meta!.preTokenBalances!.map((balance) => balance.accountIndex)).toEqual([index]);
    expect(transaction!.meta!.postTokenBalances).toEqual([]);

    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect((parsed!.transaction.message.instructions[0] as ParsedInstruction).parsed).toEqual({
      type: "closeAccount",
      info: { account: account.toBase58(), destination: rentCollector.publicKey.toBase58(), owner: holder.publicKey.toBase58() },
    });
  });
});
