import { sql } from "drizzle-orm";
import { getBase58Codec } from "@solana/kit";
import type { Network } from "../../config/index.ts";
import { queryRows } from "../../db/client.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { INDEXED_CHANNEL, type RailContext, type SubmittedCredit } from "../types.ts";
import { solanaConnection } from "./connection.ts";
import { recordCredits } from "./ingest/recordCredits.ts";
import { creditOf, isStamped, markFinalized, stampBlockTimes } from "./ingest/readCredits.ts";
import { scanAddress } from "./ingest/scanAddress.ts";
import { SDK_TRANSFER_CLOCK_SKEW_MS, sdkTransferCredits } from "./sdkTransfer.ts";
import { watchOf } from "./watchedAccount.ts";

/** Whether `value` is a transaction signature: base58 of 64 bytes. */
export function isSolanaSignature(value: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(value)) return false;
  try {
    return getBase58Codec().encode(value).length === 64;
  } catch {
    return false;
  }
}

/**
 * What a submitted transaction pays a payment: the same check as the subscriber's
 * (the watched token account's balance rise for the payment's mint and program; a Solana
 * Pay transfer must also carry the payment's reference), read at `confirmed` — or, for a
 * direct payment, the client SDK's own transfer to the merchant without a reference
 * (`sdkTransferCredits`), which one signature can pay for one payment only. What it
 * finds is stored as an ingested credit, so the subscriber seeing it later changes
 * nothing; a transaction already credited to another payment pays this one nothing.
 */
export async function verifySubmission(ctx: RailContext, payment: PaymentRow, network: Network, transaction: string): Promise<SubmittedCredit[]> {
  if (!isSolanaSignature(transaction)) {
    throw new ValidationError("txHash", `Invalid field 'txHash': ${network.name} transactions are identified by their signature (base58, 64 bytes)`);
  }
  const connection = solanaConnection(network, "confirmed", ctx.config.rpcTimeoutMs * 5);
  const parsed = await connection.getParsedTransaction(transaction, { maxSupportedTransactionVersion: 0, commitment: "confirmed" }).catch((error: Error) => {
    throw new ServiceUnavailableError(`Could not read the transaction from ${network.name}: ${error.message.split("\n")[0]}`);
  });
  if (!parsed) throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${transaction} was not found on ${network.name} (not confirmed yet?)`);
  // Served without its status metadata there are no balances to read what it pays: not "pays nothing", ask again.
  if (!parsed.meta) throw new ServiceUnavailableError(`${network.name} served transaction ${transaction} without its metadata; try again in a few seconds`);
  if (parsed.meta.err) throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${transaction} failed`);
  const watch = watchOf(network, payment);
  const referenced = creditOf(watch, transaction, parsed);
  // Without the payment's reference: the client SDK's own transfer, recognised by the transaction itself.
  const read = referenced ? [referenced] : sdkTransferCredits(watch, payment, transaction, parsed);
  if (read.length === 0) return [];
  await stampBlockTimes(connection, read);
  if (!read.every(isStamped)) throw new ServiceUnavailableError(`${network.name} did not tell the time of transaction ${transaction}'s block yet; try again in a few seconds`);
  const credits = read.filter(isStamped);
  // Its time decides whether it was made for this payment (the node may have stamped it only now).
  if (!referenced && credits.some((c) => c.blockTime.getTime() < payment.createdAt.getTime() - SDK_TRANSFER_CLOCK_SKEW_MS)) return [];
  await markFinalized(connection, credits).catch((error: Error) => {
    throw new ServiceUnavailableError(`Could not read the transaction's status from ${network.name}: ${error.message.split("\n")[0]}`);
  });
  const { refused } = await recordCredits(ctx.db, {
    chainId: network.chainId,
    channel: INDEXED_CHANNEL,
    foundBy: "submission",
    credits,
    // Nothing in the SDK's transfer names the payment: the first payment it is submitted for takes all of it.
    ...(referenced ? {} : { exclusiveTo: payment.id }),
  });
  if (refused) throw new ServiceUnavailableError(`Transaction ${transaction} is not final yet on ${network.name}; try again in a few seconds`);
  const owners = await queryRows<{ account: string; payment_id: string }>(ctx.db, sql`
    select account, payment_id from solana_credits where chain_id = ${network.chainId} and signature = ${transaction}
      and account = any(${sql.param(credits.map((c) => c.account))}::text[])`);
  const ours = new Set(owners.filter((o) => o.payment_id === payment.id).map((o) => o.account));
  return credits
    .filter((c) => ours.has(c.account))
    .map((c) => ({ txHash: transaction, logIndex: c.accountIndex, blockNumber: c.slot, blockTimestamp: c.blockTime, amount: c.amount }));
}

/** Looks the payment up on chain now (its deposit account, or its Solana Pay reference) and stores what pays it. */
export async function refreshEvidence(ctx: RailContext, payment: PaymentRow, network: Network): Promise<void> {
  const connection = solanaConnection(network, "confirmed", ctx.config.rpcTimeoutMs * 5);
  await scanAddress({ db: ctx.db, connection, chainId: network.chainId, channel: INDEXED_CHANNEL }, watchOf(network, payment), "lookup");
}
