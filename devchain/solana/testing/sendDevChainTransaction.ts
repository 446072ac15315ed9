import { type Keypair, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { PreflightFailedError } from "../ledger/preflightFailedError.ts";

/** A helper transaction the chain refused; carries the simulation logs. */
export class DevChainTransactionError extends Error {
  override readonly name = "DevChainTransactionError";

  constructor(
    message: string,
    readonly logs: string[],
  ) {
    super(message);
  }
}

/**
 * Signs and sends instructions straight into the ledger (with preflight), the faucet
 * paying the fee. Processed at once; returns the signature.
 */
export function sendDevChainTransaction(ledger: DevLedger, instructions: TransactionInstruction[], signers: Keypair[] = []): string {
  const transaction = new Transaction({
    feePayer: ledger.faucet.publicKey,
    recentBlockhash: ledger.clock.block(ledger.clock.tip)!.blockhash,
  }).add(...instructions);
  transaction.sign(ledger.faucet, ...signers);
  try {
    return ledger.submit(transaction.serialize());
  } catch (error) {
    if (error instanceof PreflightFailedError) throw new DevChainTransactionError(error.message, error.simulation.meta.logMessages);
    throw error;
  }
}
