import { decodeTransferCheckedInstructionUnchecked } from "@solana/spl-token";
import { ComputeBudgetInstruction, ComputeBudgetProgram, PublicKey, Transaction } from "@solana/web3.js";
import { RefundSignatureError, ServiceUnavailableError, ValidationError } from "../../../domain/errors.ts";
import type { MerchantSignedRefunds } from "../../ports/merchantSignedRefunds.ts";
import { solanaConnection } from "../connection.ts";
import { solanaOperator } from "../operator.ts";
import { MAX_PRICE, priorityFee } from "../transfers/priorityFee.ts";
import { refundTransaction } from "./refundTransaction.ts";

/** Slots a blockhash stays usable (the cluster's `MAX_PROCESSING_AGE`): a signed refund lands within about a minute of its preparing, or never. */
const BLOCKHASH_LIFETIME = 150n;

const operatorOf = (config: Parameters<MerchantSignedRefunds["prepare"]>[0]) => {
  const operator = solanaOperator(config);
  if (!operator) throw new ServiceUnavailableError("SOLANA_OPERATOR_SECRET_KEY is not configured: no one pays a relayed refund's fee");
  return operator.publicKey;
};

const notPrepared = (why: string) => new ValidationError("transaction", `Invalid field 'transaction': not a refund this service prepared (${why}); prepare one and sign it unchanged`);

/**
 * Solana: the service prepares the refund's transaction (the operator as fee payer, a recent
 * blockhash), the merchant's wallet signs it as its token account's owner, and the worker adds
 * the operator's signature and sends it. A blockhash lives ~150 slots, so the wallet signs
 * within about a minute; an expired one is refused here, or closes the refund unsent.
 */
export const solanaMerchantSignedRefunds: MerchantSignedRefunds = {
  async prepare(config, network, payment, order, timeoutMs) {
    const operator = operatorOf(config);
    const connection = solanaConnection(network, "confirmed", timeoutMs);
    const [price, latest] = await Promise.all([priorityFee(connection, [operator], 0), connection.getLatestBlockhash("confirmed")]);
    const transaction = refundTransaction(network, payment, { operator, from: new PublicKey(order.from), to: new PublicKey(order.to), amount: order.amount, price, blockhash: latest.blockhash });
    return {
      from: order.from,
      to: order.to,
      amount: order.amount,
      // ~400 ms a slot; the chain's own bound is the block height.
      validUntil: new Date(Date.now() + 60_000),
      format: "solana_transaction",
      transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"),
    };
  },

  async accept(config, network, payment, from, submission, timeoutMs) {
    const operator = operatorOf(config);
    if (typeof submission.transaction !== "string" || submission.transaction.length === 0) throw new ValidationError("transaction", "Invalid field 'transaction': the prepared transaction, signed by the wallet, base64");
    let transaction: Transaction;
    try {
      transaction = Transaction.from(Buffer.from(submission.transaction, "base64"));
    } catch {
      throw new ValidationError("transaction", "Invalid field 'transaction': not a serialized Solana transaction (base64)");
    }
    const [, price, create, transfer] = transaction.instructions;
    if (transaction.instructions.length !== 4 || !price || !create || !transfer || !transaction.recentBlockhash) throw notPrepared("its instructions differ");
    let parts;
    try {
      const decoded = decodeTransferCheckedInstructionUnchecked(transfer);
      parts = {
        operator,
        from: new PublicKey(from),
        to: create.keys[2]!.pubkey,
        amount: decoded.data.amount,
        price: ComputeBudgetProgram.programId.equals(price.programId) ? BigInt(ComputeBudgetInstruction.decodeSetComputeUnitPrice(price).microLamports) : -1n,
        blockhash: transaction.recentBlockhash,
      };
    } catch {
      throw notPrepared("its instructions differ");
    }
    if (parts.price < 0n || parts.price > MAX_PRICE) throw notPrepared("its priority fee");
    // Rebuilt from what it claims, and compared byte for byte: the operator signs exactly a refund.
    const expected = refundTransaction(network, payment, parts);
    if (!expected.serializeMessage().equals(transaction.serializeMessage())) throw notPrepared(`it is not a transfer from ${from} of the payment's token`);
    const own = transaction.signatures.find((s) => s.publicKey.equals(parts.from));
    if (!own?.signature || !transaction.verifySignatures(false)) throw new RefundSignatureError(`Invalid field 'transaction': it does not carry ${from}'s signature of this transaction.`);
    const connection = solanaConnection(network, "confirmed", timeoutMs);
    const [valid, height] = await Promise.all([connection.isBlockhashValid(parts.blockhash, { commitment: "confirmed" }), connection.getBlockHeight("confirmed")]);
    if (!valid.value) throw new ValidationError("transaction", "Invalid field 'transaction': its blockhash expired (a signed refund lands within about a minute of its preparing): prepare a new one");
    return {
      to: parts.to.toBase58(),
      amount: parts.amount,
      signed: { format: "solana_transaction", transaction: submission.transaction },
      // Valid now: it can land at most BLOCKHASH_LIFETIME blocks from here.
      lastValidBlockHeight: BigInt(height) + BLOCKHASH_LIFETIME + 1n,
    };
  },
};
