import { describe, expect, test } from "bun:test";
import { getBase58Decoder } from "@solana/kit";
import {
  createAssociatedTokenAccountInstruction,
  createBurnCheckedInstruction,
  createInitializeAccount2Instruction,
  createInitializeAccountInstruction,
  createMintToInstruction,
  createSetAuthorityInstruction,
  createTransferInstruction,
  AuthorityType,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, SYSVAR_RENT_PUBKEY, type TransactionInstruction } from "@solana/web3.js";
import { parseInstruction } from "../solana/parse/parseInstruction.ts";

const [source, destination, owner, mint, signerA, signerB, payer] = Array.from({ length: 7 }, () => Keypair.generate().publicKey.toBase58()) as [
  string, string, string, string, string, string, string,
];
const key = (base58: string) => new PublicKey(base58);

function parse(instruction: TransactionInstruction) {
  return parseInstruction(
    instruction.programId.toBase58(),
    instruction.keys.map((meta) => meta.pubkey.toBase58()),
    instruction.data,
    null,
  );
}

// Expected shapes follow the reference node's parsers (anza-xyz/agave transaction-status).
describe("parseInstruction", () => {
  test.each([
    [
      "transfer",
      createTransferInstruction(key(source), key(destination), key(owner), 42n),
      { type: "transfer", info: { source, destination, authority: owner, amount: "42" } },
    ],
    [
      "multisig transfer",
      createTransferInstruction(key(source), key(destination), key(owner), 42n, [key(signerA), key(signerB)]),
      { type: "transfer", info: { source, destination, multisigAuthority: owner, signers: [signerA, signerB], amount: "42" } },
    ],
    [
      "initializeAccount",
      createInitializeAccountInstruction(key(source), key(mint), key(owner)),
      { type: "initializeAccount", info: { account: source, mint, owner, rentSysvar: SYSVAR_RENT_PUBKEY.toBase58() } },
    ],
    [
      "initializeAccount2",
      createInitializeAccount2Instruction(key(source), key(mint), key(owner)),
      { type: "initializeAccount2", info: { account: source, mint, owner, rentSysvar: SYSVAR_RENT_PUBKEY.toBase58() } },
    ],
    ["mintTo", createMintToInstruction(key(mint), key(destination), key(owner), 7n), { type: "mintTo", info: { mint, account: destination, mintAuthority: owner, amount: "7" } }],
    [
      "burnChecked on Token-2022",
      createBurnCheckedInstruction(key(source), key(mint), key(owner), 1_500_000n, 6, [], TOKEN_2022_PROGRAM_ID),
      { type: "burnChecked", info: { account: source, mint, authority: owner, tokenAmount: { amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" } } },
    ],
    [
      "setAuthority",
      createSetAuthorityInstruction(key(source), key(owner), AuthorityType.AccountOwner, key(destination)),
      { type: "setAuthority", info: { account: source, authorityType: "accountOwner", newAuthority: destination, authority: owner } },
    ],
  ])("spl-token %s", (_name, instruction, parsed) => {
    expect(parse(instruction)).toEqual({ program: "spl-token", programId: instruction.programId.toBase58(), parsed, stackHeight: null });
  });

  test("ATA create (legacy empty data)", () => {
    const instruction = createAssociatedTokenAccountInstruction(key(payer), key(destination), key(owner), key(mint));
    expect(parse(instruction)).toMatchObject({
      program: "spl-associated-token-account",
      parsed: { type: "create", info: { source: payer, account: destination, wallet: owner, mint, systemProgram: SystemProgram.programId.toBase58(), tokenProgram: TOKEN_PROGRAM_ID.toBase58() } },
    });
  });

  test("system createAccount", () => {
    const instruction = SystemProgram.createAccount({ fromPubkey: key(payer), newAccountPubkey: key(source), lamports: 2_039_280, space: 165, programId: TOKEN_PROGRAM_ID });
    expect(parse(instruction)).toMatchObject({
      program: "system",
      parsed: { type: "createAccount", info: { source: payer, newAccount: source, lamports: 2_039_280, space: 165, owner: TOKEN_PROGRAM_ID.toBase58() } },
    });
  });

  test("what real nodes do not parse stays partially decoded", () => {
    const unknownProgram = Keypair.generate().publicKey.toBase58();
    expect(parseInstruction(unknownProgram, [source], new Uint8Array([1, 2, 3]), 2)).toEqual({ programId: unknownProgram, accounts: [source], data: "Ldp", stackHeight: 2 });
    // A token instruction that does not decode (truncated data) falls back the same way.
    expect(parseInstruction(TOKEN_PROGRAM_ID.toBase58(), [source], new Uint8Array([3, 1]), null)).toEqual({
      programId: TOKEN_PROGRAM_ID.toBase58(),
      accounts: [source],
      data: getBase58Decoder().decode(new Uint8Array([3, 1])),
      stackHeight: null,
    });
  });
});
