import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from "@solana/spl-token";
import { getBase58Codec } from "@solana/kit";
import { ComputeBudgetProgram, PublicKey, Transaction, type Connection, type Keypair, type TransactionInstruction } from "@solana/web3.js";
import type { Network } from "../../../config/types.ts";
import { ServiceUnavailableError } from "../../../domain/errors.ts";
import type { PaymentRow, TransferOutRow } from "../../../db/schema/index.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "../tokenAccounts.ts";
import { tokenAccountBalance } from "../tokenAccountBalance.ts";
import { closeTokenAccount } from "./closeTokenAccount.ts";
import { priorityFee, TRANSFER_OUT_COMPUTE_UNITS } from "./priorityFee.ts";

export type SignedTransferOut = {
  rawTx: string;
  txHash: string;
  blockhash: string;
  lastValidBlockHeight: bigint;
  closesAccount: boolean;
  /** What the deposit token account held when this was signed: signing it again needs the same (see `unlandedProof`). */
  sourceBalance: bigint;
};

/**
 * The recipient, as it stands when the transfer is signed, can receive nothing anyone can
 * spend: an address off the curve with no account (a token account closed since the refund was
 * asked for: its associated token account would be owned by no key). Nothing is signed.
 */
export class RecipientUnusableError extends Error {
  override name = "RecipientUnusableError";
}

/**
 * One signed transaction that moves a sweep's or refund's amount out of a deposit
 * address's token account, the operator paying every fee (the deposit key signs only as
 * the account's owner, and never needs SOL): create the recipient's associated token
 * account if missing (idempotent), `transferChecked` the amount, and when that empties
 * the account, `closeAccount` with its rent back to the operator (Token-2022 fee mints:
 * withheld fees harvested to the mint first, or it could not close). A refund address
 * that is itself a token account of the mint is paid directly. Null when the account
 * holds less than the amount.
 */
export async function buildTransferOut(input: {
  connection: Connection;
  network: Network;
  payment: PaymentRow;
  row: TransferOutRow;
  operator: Keypair;
  depositKey: Keypair;
  /** The blockhash from a node at this slot at least (re-signing: the finalized slot that proved the last one expired). */
  minContextSlot?: number;
}): Promise<SignedTransferOut | null> {
  const { connection, operator, depositKey, row } = input;
  const token = tokenOfMint(input.network, input.payment.tokenAddress);
  const program = tokenProgramOf(token);
  const mint = new PublicKey(token.address);
  const source = associatedTokenAccount(depositKey.publicKey, mint, program);
  const sourceBalance = await tokenAccountBalance(connection, source, input.payment.evidenceBlock);
  if (sourceBalance < row.amount) return null;

  const instructions: TransactionInstruction[] = [];
  const recipient = new PublicKey(row.toAddress);
  const recipientInfo = await connection.getParsedAccountInfo(recipient, "confirmed");
  const parsed = recipientInfo.value?.data && "parsed" in recipientInfo.value.data ? (recipientInfo.value.data.parsed as { type?: string; info?: { mint?: string } }) : null;
  let destination: PublicKey;
  if (recipientInfo.value?.owner.equals(program) && parsed?.type === "account" && parsed.info?.mint === token.address) {
    destination = recipient; // already a token account of this mint
  } else if (!recipientInfo.value && !PublicKey.isOnCurve(recipient.toBytes())) {
    // Asked of a node at the evidence's slot at least: a lagging one may not know the account yet.
    const there = input.payment.evidenceBlock === null ? null : await connection.getAccountInfo(recipient, { commitment: "confirmed", minContextSlot: Number(input.payment.evidenceBlock) });
    if (!there) throw new RecipientUnusableError(`${row.toAddress} holds nothing and no key can sign for it (a token account closed since the ${row.kind} was asked for?): nothing sent`);
    throw new ServiceUnavailableError(`a node behind slot ${input.payment.evidenceBlock} did not know ${row.toAddress}; asking again`);
  } else {
    destination = associatedTokenAccount(recipient, mint, program);
    instructions.push(createAssociatedTokenAccountIdempotentInstruction(operator.publicKey, destination, recipient, mint, program));
  }
  instructions.push(createTransferCheckedInstruction(source, mint, destination, depositKey.publicKey, row.amount, token.decimals, [], program));
  const closesAccount = sourceBalance === row.amount;
  if (closesAccount) instructions.push(...(await closeTokenAccount(connection, { account: source, mint, token, program, owner: depositKey.publicKey, rentTo: operator.publicKey })));
  // A priority fee, raised each time an earlier signing expired unlanded: at none, a congested
  // cluster drops the transfer again and again.
  const price = await priorityFee(connection, [source, destination, operator.publicKey], row.replacedTxHashes.length);
  instructions.unshift(ComputeBudgetProgram.setComputeUnitLimit({ units: TRANSFER_OUT_COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: price }));
  // From a node at the evidence's slot at least (or the caller's): a lagging one's blockhash may be expiring already.
  const floor = Math.max(input.minContextSlot ?? 0, input.payment.evidenceBlock === null ? 0 : Number(input.payment.evidenceBlock));
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash({ commitment: "confirmed", ...(floor > 0 ? { minContextSlot: floor } : {}) });
  const transaction = new Transaction({ feePayer: operator.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
  transaction.sign(operator, depositKey);
  return {
    rawTx: transaction.serialize().toString("base64"),
    txHash: getBase58Codec().decode(transaction.signature!),
    blockhash,
    lastValidBlockHeight: BigInt(lastValidBlockHeight),
    closesAccount,
    sourceBalance,
  };
}
