import type { Connection, Keypair } from "@solana/web3.js";
import type { Network } from "../../../config/types.ts";
import { findPayment } from "../../../db/payments.ts";
import { broadcastOnChain, claimTransferOutBroadcast, findTransferOut, replaceTransferOutTx, type TransferOutRow } from "../../../db/transfersOut.ts";
import { OperatorBalanceLowError, ServiceUnavailableError } from "../../../domain/errors.ts";
import type { TransferContext } from "../../transferLedger.ts";
import { solanaConnection } from "../connection.ts";
import { depositKeyOf } from "../depositKeys.ts";
import { solanaOperator, SWEEP_LAMPORTS } from "../operator.ts";
import { buildTransferOut, RecipientUnusableError } from "./buildTransferOut.ts";
import { withChainLock } from "../../chainLock.ts";
import { signatureStatuses } from "./signatureStatuses.ts";
import { unlandedProof } from "./unlandedProof.ts";
import { signRelayedRefund, type RelayedRefund } from "../signedRefunds/relaySignedRefund.ts";

/** How long one run follows a sent transaction before leaving it to the job's retry. */
const FOLLOW_MS = 60_000;
const POLL_MS = 300;

const isFinal = (row: TransferOutRow) => row.status === "confirmed" || row.status === "failed";

type Ctx = { ctx: TransferContext; network: Network; connection: Connection; operator: Keypair };

/**
 * Drives one Solana sweep or refund row to a final state, exactly once on chain:
 * - `requested`: check the operator's SOL, sign one transaction (see `buildTransferOut`),
 *   record its bytes, signature, blockhash and last valid block height, marking the row
 *   `broadcast` only if it is still `requested` (two runs: one records, one follows) —
 *   only then send it;
 * - `broadcast`: read the finalized block height, then the statuses of the row's
 *   signatures (a node behind that height knows nothing yet: its "unknown" is no answer).
 *   Landed and finalized: `confirmed` (the `forwarded`/`refunded` event); landed and
 *   failed: `failed` (nothing moved). Not landed while the blockhash is still valid: send
 *   the very same bytes again (one signature can land once). Not landed and the finalized
 *   height past its last valid height: it can never land, so it is signed again with a
 *   fresh blockhash, recorded (the old signature kept) before it is sent — only if the
 *   deposit account still holds what it held at signing (`unlandedProof`): a node that
 *   drops status answers must not make a landed transfer go out twice.
 * Safe to call twice, concurrently, or after a crash at any point.
 */
export async function executeTransferOut(ctx: TransferContext, rowId: string): Promise<TransferOutRow> {
  const first = await findTransferOut(ctx.db, rowId);
  if (!first) throw new Error(`no transfer ${rowId}`);
  if (isFinal(first)) return first;
  const network = ctx.config.networks.find((n) => n.chainId === first.chainId && n.type === "solana" && n.enabled);
  if (!network) throw new ServiceUnavailableError(`chain ${first.chainId} is not available for sweeps`);
  const operator = solanaOperator(ctx.config);
  if (!operator) throw new ServiceUnavailableError("SOLANA_OPERATOR_SECRET_KEY is not configured");
  const c: Ctx = { ctx, network, connection: solanaConnection(network, "confirmed", 20_000), operator };
  if (first.status === "requested") {
    // One signer a chain at a time: each judges the fee payer's SOL against every transfer already out.
    const ended = ctx.databaseUrl ? await withChainLock(ctx.databaseUrl, first.chainId, () => signAndSend(c, rowId)) : await signAndSend(c, rowId);
    if (ended) return ended;
  }
  return follow(c, rowId);
}

/**
 * The fee payer must hold a transfer's worst case (fees, a recipient account's rent, the
 * priority cap) for this one and for each one of the chain already out and not final: up to
 * 16 run at once, and each judged alone passed while the second to land failed for want of
 * rent (its fee burned, counted as a revert).
 */
async function assertOperatorFunded(c: Ctx, row: TransferOutRow): Promise<void> {
  const [balance, others] = await Promise.all([
    c.connection.getBalance(c.operator.publicKey, "confirmed").then(BigInt),
    broadcastOnChain(c.ctx.db, row.chainId, row.id),
  ]);
  const needed = SWEEP_LAMPORTS * BigInt(others + 1);
  if (balance < needed) throw new OperatorBalanceLowError(c.network.name, balance, needed, "lamports");
}

async function signAndSend(c: Ctx, rowId: string): Promise<TransferOutRow | null> {
  const { ctx, connection, operator } = c;
  const row = (await findTransferOut(ctx.db, rowId))!;
  if (row.status !== "requested") return isFinal(row) ? row : null;
  await assertOperatorFunded(c, row);
  if (row.merchantSigned) {
    // A refund the merchant's wallet signed: the operator adds its signature as fee payer.
    const relayed = await signRelayedRefund(connection, row, operator);
    if ("problem" in relayed) {
      await ctx.ledger.fail(ctx.db, row.id, "requested", { error: relayed.problem });
      return (await findTransferOut(ctx.db, row.id))!;
    }
    return claimAndSend(c, row, relayed);
  }
  const payment = (await findPayment(ctx.db, row.paymentId))!;
  const depositKey = await depositKeyOf(ctx, payment);
  const signed = await buildTransferOut({ connection, network: c.network, payment, row, operator, depositKey }).catch(async (error: Error) => {
    // A refund whose address can no longer receive is closed (owed again: asked for anew elsewhere).
    if (!(error instanceof RecipientUnusableError)) throw error;
    await ctx.ledger.fail(ctx.db, row.id, "requested", { error: error.message });
    return "closed" as const;
  });
  if (signed === "closed") return (await findTransferOut(ctx.db, row.id))!;
  if (!signed) {
    await ctx.ledger.fail(ctx.db, row.id, "requested", { error: `the deposit account holds less than ${row.amount}` });
    return (await findTransferOut(ctx.db, row.id))!;
  }
  return claimAndSend(c, row, signed);
}

/** Recorded before it is sent: a crash from here on finds the signature and the bytes. */
async function claimAndSend(c: Ctx, row: TransferOutRow, signed: RelayedRefund): Promise<null> {
  const claimed = await claimTransferOutBroadcast(c.ctx.db, row.id, {
    rawTx: signed.rawTx,
    txHash: signed.txHash,
    fromAddress: c.operator.publicKey.toBase58(),
    blockhash: signed.blockhash,
    lastValidBlockHeight: signed.lastValidBlockHeight,
    sourceBalance: signed.sourceBalance,
  });
  if (claimed) await send(c, signed.rawTx, row.id);
  return null;
}

async function send(c: Ctx, rawTx: string, rowId: string): Promise<void> {
  await c.connection.sendRawTransaction(Buffer.from(rawTx, "base64"), { skipPreflight: true, maxRetries: 0 }).catch((error: Error) => {
    c.ctx.logger.warn({ err: error, transfer: rowId }, "solana broadcast failed; checking the chain");
  });
}

const signaturesOf = (row: TransferOutRow) => [row.txHash, ...row.replacedTxHashes].filter((s): s is string => Boolean(s));

async function follow(c: Ctx, rowId: string): Promise<TransferOutRow> {
  const { ctx, connection } = c;
  const until = Date.now() + FOLLOW_MS;
  for (;;) {
    const row = (await findTransferOut(ctx.db, rowId))!;
    if (isFinal(row) || row.status !== "broadcast") return row;
    // The finalized height first: a transaction not found after it is past its last valid
    // height can never land — in the word of a node that has itself reached that point
    // (behind a load balancer the statuses may come from a node lagging the one that gave
    // the height, which does not know a landed transaction *yet*).
    const final = await connection.getEpochInfo("finalized");
    const signatures = signaturesOf(row);
    const { context, value } = await signatureStatuses(connection, signatures);
    const caughtUp = context.slot >= final.absoluteSlot;
    // A success among the row's transactions is the transfer, whatever became of the others
    // (a copy signed again after a lookup missed the first fails for want of funds).
    const succeeded = value.findIndex((s) => s !== null && s.err === null);
    const landedAt = succeeded >= 0 ? succeeded : value.findIndex((s) => s !== null);
    if (landedAt >= 0) {
      const status = value[landedAt]!;
      // Failed only once final: the same bytes can fail on a fork the cluster drops and succeed on the one it keeps.
      if (status.err !== null && status.confirmationStatus === "finalized") {
        await ctx.ledger.fail(ctx.db, row.id, "broadcast", { blockNumber: BigInt(status.slot), error: `transaction ${signatures[landedAt]} failed: ${JSON.stringify(status.err)}` });
        return (await findTransferOut(ctx.db, row.id))!;
      }
      if (status.err === null && status.confirmationStatus === "finalized") {
        await ctx.ledger.confirm(ctx.db, row.id, { blockNumber: BigInt(status.slot), txHash: signatures[landedAt]! });
        return (await findTransferOut(ctx.db, row.id))!;
      }
    } else if (caughtUp && row.lastValidBlockHeight !== null && final.blockHeight !== undefined && BigInt(final.blockHeight) > row.lastValidBlockHeight) {
      // A merchant-signed refund cannot be signed again here: it can never land, so it is closed.
      if (row.merchantSigned) {
        await ctx.ledger.fail(ctx.db, row.id, "broadcast", { error: "the merchant-signed refund expired unlanded: nothing moved; sign a new one" }, { txHash: row.txHash! });
        return (await findTransferOut(ctx.db, row.id))!;
      }
      // Then the follow's own pace: a fresh blockhash a lagging node gave could be expired too,
      // and signing again at once, again and again, would pile up signatures and fees.
      await resign(c, row, { slot: final.absoluteSlot, height: BigInt(final.blockHeight) });
    } else {
      await send(c, row.rawTx!, row.id); // the same bytes: harmless if it already went through
    }
    if (Date.now() > until) throw new ServiceUnavailableError(`transaction ${row.txHash} not final yet`);
    await Bun.sleep(POLL_MS);
  }
}

/**
 * The row's transaction expired and no node reports it: sign the same transfer again with a
 * fresh blockhash, recorded before it is sent — only once the deposit account proves it did
 * not land (`unlandedProof`); else the job's retry asks for its statuses again.
 */
async function resign(c: Ctx, row: TransferOutRow, final: { slot: number; height: bigint }): Promise<void> {
  const { ctx, connection, operator } = c;
  const payment = (await findPayment(ctx.db, row.paymentId))!;
  const mayHaveLanded = await unlandedProof(connection, c.network, payment, row, final.slot);
  if (mayHaveLanded) {
    ctx.logger.warn({ transfer: row.id, reason: mayHaveLanded }, "solana transaction expired with no status found, but it may have landed: not signing it again");
    throw new ServiceUnavailableError(`${mayHaveLanded}; waiting for a node to report its signatures`);
  }
  // A fee payer short of SOL never lands anything: signing again at every expiry would only
  // pile up signatures (what the row's follow-up reads grows with them).
  await assertOperatorFunded(c, row);
  const depositKey = await depositKeyOf(ctx, payment);
  const signed = await buildTransferOut({ connection, network: c.network, payment, row, operator, depositKey, minContextSlot: final.slot }).catch(async (error: Error) => {
    if (!(error instanceof RecipientUnusableError)) throw error;
    await ctx.ledger.fail(ctx.db, row.id, "broadcast", { error: `expired unlanded; ${error.message}` }, { txHash: row.txHash! });
    return "closed" as const;
  });
  if (signed === "closed") return;
  if (!signed) {
    // Only while the row still holds the expired transaction: another run's replacement may have landed and emptied the account.
    await ctx.ledger.fail(ctx.db, row.id, "broadcast", { error: `expired unlanded, and the deposit account now holds less than ${row.amount}` }, { txHash: row.txHash! });
    return;
  }
  if (signed.lastValidBlockHeight <= final.height) {
    throw new ServiceUnavailableError(`the node gave an expired blockhash (valid to height ${signed.lastValidBlockHeight}, final height ${final.height}); asking again`);
  }
  ctx.logger.warn({ transfer: row.id, expired: row.txHash }, "solana transaction expired without landing; signing it again");
  const replaced = await replaceTransferOutTx(ctx.db, row.id, row.txHash!, {
    rawTx: signed.rawTx,
    txHash: signed.txHash,
    blockhash: signed.blockhash,
    lastValidBlockHeight: signed.lastValidBlockHeight,
    sourceBalance: signed.sourceBalance,
  });
  if (replaced) await send(c, signed.rawTx, row.id);
}
