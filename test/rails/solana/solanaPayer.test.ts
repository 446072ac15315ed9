import { expect, test } from "bun:test";
import { Keypair, type ParsedTransactionWithMeta } from "@solana/web3.js";
import { tokenBalanceDelta } from "../../../rails/solana/tokenBalanceDelta.ts";

/** Who paid a Solana credit: the one owner whose token accounts of the mint lost balance in the transaction. */
const key = () => Keypair.generate().publicKey;
const MINT = key().toBase58();
const PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuCvf3Tq1Ss623VQ5DA";
const accounts = Array.from({ length: 5 }, key);
const owners = { deposit: key().toBase58(), alice: key().toBase58(), bob: key().toBase58() };
const watched = { account: accounts[0]!.toBase58(), mint: MINT, tokenProgram: PROGRAM };

type Balance = { index: number; owner?: string; amount: string; mint?: string };
const balance = (b: Balance) => ({ accountIndex: b.index, mint: b.mint ?? MINT, owner: b.owner, programId: PROGRAM, uiTokenAmount: { amount: b.amount, decimals: 6, uiAmount: null, uiAmountString: b.amount } });
function transaction(pre: Balance[], post: Balance[]): ParsedTransactionWithMeta {
  return {
    slot: 1,
    blockTime: 1,
    transaction: { signatures: ["x"], message: { accountKeys: accounts.map((pubkey) => ({ pubkey, signer: false, writable: true })), instructions: [], recentBlockhash: "x" } },
    meta: { err: null, fee: 5000, preBalances: [], postBalances: [], preTokenBalances: pre.map(balance), postTokenBalances: post.map(balance) },
  } as unknown as ParsedTransactionWithMeta;
}

test("one wallet paid: its owner is the payer", () => {
  const paid = transaction(
    [{ index: 0, owner: owners.deposit, amount: "0" }, { index: 1, owner: owners.alice, amount: "5000000" }],
    [{ index: 0, owner: owners.deposit, amount: "2000000" }, { index: 1, owner: owners.alice, amount: "3000000" }],
  );
  expect(tokenBalanceDelta(paid, watched)).toEqual({ amount: 2_000_000n, accountIndex: 0, owner: owners.deposit, payer: owners.alice });
});

test("two accounts of one wallet paid: still that wallet; an account closed in the transaction counts as emptied", () => {
  const paid = transaction(
    [{ index: 1, owner: owners.alice, amount: "1000000" }, { index: 2, owner: owners.alice, amount: "1000000" }],
    [{ index: 0, owner: owners.deposit, amount: "2000000" }, { index: 1, owner: owners.alice, amount: "0" }],
  );
  expect(tokenBalanceDelta(paid, watched)?.payer).toBe(owners.alice);
});

test("several wallets paid, a mint (no source), or an owner the node does not name: not known", () => {
  const two = transaction(
    [{ index: 1, owner: owners.alice, amount: "1000000" }, { index: 2, owner: owners.bob, amount: "1000000" }],
    [{ index: 0, owner: owners.deposit, amount: "2000000" }, { index: 1, owner: owners.alice, amount: "0" }, { index: 2, owner: owners.bob, amount: "0" }],
  );
  expect(tokenBalanceDelta(two, watched)).toMatchObject({ amount: 2_000_000n, payer: null });
  const minted = transaction([], [{ index: 0, owner: owners.deposit, amount: "2000000" }]);
  expect(tokenBalanceDelta(minted, watched)).toMatchObject({ amount: 2_000_000n, payer: null });
  const unnamed = transaction([{ index: 1, amount: "1000000" }], [{ index: 0, owner: owners.deposit, amount: "1000000" }, { index: 1, amount: "0" }]);
  expect(tokenBalanceDelta(unnamed, watched)?.payer).toBeNull();
});

test("another mint's balance falling is not who paid this one", () => {
  const other = key().toBase58();
  const paid = transaction(
    [{ index: 1, owner: owners.alice, amount: "1000000" }, { index: 2, owner: owners.bob, amount: "9", mint: other }],
    [{ index: 0, owner: owners.deposit, amount: "1000000" }, { index: 1, owner: owners.alice, amount: "0" }, { index: 2, owner: owners.bob, amount: "0", mint: other }],
  );
  expect(tokenBalanceDelta(paid, watched)?.payer).toBe(owners.alice);
});
