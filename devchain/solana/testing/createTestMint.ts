import {
  createInitializeMint2Instruction,
  createInitializeTransferFeeConfigInstruction,
  ExtensionType,
  getMintLen,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { Keypair, type PublicKey, SystemProgram } from "@solana/web3.js";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { sendDevChainTransaction } from "./sendDevChainTransaction.ts";

export interface TestMintOptions {
  /** Default 6, like USDC. */
  decimals?: number;
  /** "spl-token" (classic Token program, default) or "token-2022". */
  tokenProgram?: "spl-token" | "token-2022";
  /** Token-2022 only: the transfer-fee extension; the fee is withheld in the recipient's account. */
  transferFee?: { basisPoints: number; maximumFee: bigint };
  mintAuthority?: Keypair;
  freezeAuthority?: PublicKey | null;
  /** Fixed mint keypair (stable address across runs); random by default. */
  mintKeypair?: Keypair;
}

export interface TestMint {
  address: PublicKey;
  decimals: number;
  programId: PublicKey;
  mintAuthority: Keypair;
  transferFee?: { basisPoints: number; maximumFee: bigint };
}

/** Creates and initializes a mint on the devchain (faucet pays); processed at once. */
export function createTestMint(ledger: DevLedger, options: TestMintOptions = {}): TestMint {
  const decimals = options.decimals ?? 6;
  const programId = options.tokenProgram === "token-2022" || options.transferFee ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID;
  if (options.transferFee && options.tokenProgram === "spl-token") throw new Error("transfer fees need the token-2022 program");
  const mintAuthority = options.mintAuthority ?? Keypair.generate();
  const mint = options.mintKeypair ?? Keypair.generate();
  const extensions = options.transferFee ? [ExtensionType.TransferFeeConfig] : [];
  const space = getMintLen(extensions);
  const instructions = [
    SystemProgram.createAccount({
      fromPubkey: ledger.faucet.publicKey,
      newAccountPubkey: mint.publicKey,
      lamports: Number(ledger.svm.minimumBalanceForRentExemption(BigInt(space))),
      space,
      programId,
    }),
  ];
  if (options.transferFee) {
    instructions.push(
      createInitializeTransferFeeConfigInstruction(
        mint.publicKey,
        mintAuthority.publicKey,
        mintAuthority.publicKey,
        options.transferFee.basisPoints,
        options.transferFee.maximumFee,
        programId,
      ),
    );
  }
  instructions.push(createInitializeMint2Instruction(mint.publicKey, decimals, mintAuthority.publicKey, options.freezeAuthority ?? null, programId));
  sendDevChainTransaction(ledger, instructions, [mint]);
  return { address: mint.publicKey, decimals, programId, mintAuthority, transferFee: options.transferFee };
}
