import type { Job } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { findX402Settlement, findX402SettlementWithPayment, updateX402Settlement, type X402SettlementRow } from "../db/x402Settlements.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { closePayment, reconcilePayments } from "../reconcile/index.ts";
import { agentPayments } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

export type X402SettleDeps = { config: Config; db: Db; logger: Logger; databaseUrl: string };

/**
 * `x402-settle`: submits an x402 payment with the operator's key (verified again by x402's
 * own `exact` facilitator; on EVM sent as the settlement contract's call that pays merchant
 * and fee, on Solana co-signed as fee payer by x402's settle), records what it paid out, then
 * reconciles the payment (retried until ingest has its block;
 * dispatch then follows it through its confirmations). Safe to run again at any point: a
 * payment already on chain is never sent twice — its transaction is looked up and recorded.
 */
export function x402Settle(deps: X402SettleDeps) {
  const { config, db, logger } = deps;
  const agent = agentPayments();
  // The operators' signers load on the first settlement.
  const settleOn = agent.settler(config, deps.databaseUrl);
  // Said once at start: a network whose payments this operator cannot settle (verify refuses them too).
  for (const network of agent.networks(config)) {
    void agent
      .on(network)
      .settlerProblem(config, network)
      .then((problem) => problem && logger.error({ network: network.shortName }, `x402 payments on this network cannot be settled: ${problem}`));
  }

  return async (job: Job<JobPayloads["x402-settle"]>) => {
    const found = await findX402SettlementWithPayment(db, job.data.settlementId);
    if (!found) return { status: "missing" };
    const { row } = found;
    const recorded = row.status === "settled" || row.status === "failed" ? row : await settle(row, found.payment);
    if (recorded.status === "failed") return { status: "failed", reason: recorded.errorReason };
    // Once confirming, dispatch carries it on with each new head (as every confirming payment);
    // still pending, ingest has not reached its block yet: this job looks again.
    const after = (await reconcilePayments(db, config, [row.paymentId])).get(row.paymentId)?.after;
    if (after?.status === "pending") throw new ServiceUnavailableError(`x402 payment ${row.paymentId}: its block is not indexed yet`);
    return { status: after?.status ?? "missing", transaction: recorded.txHash };
  };

  async function settle(row: X402SettlementRow, payment: PaymentRow | null): Promise<X402SettlementRow> {
    const network = config.networks.find((n) => n.chainId === row.chainId && n.enabled);
    if (!network) throw new ServiceUnavailableError(`x402 settlement ${row.id}: network ${row.chainId} is not enabled`);
    if (!payment) throw new Error(`x402 settlement ${row.id}: payment ${row.paymentId} is missing`);
    const outcome = await settleOn(network, row, {
      payment,
      recordSigned: async (txHash) => void (await updateX402Settlement(db, row.id, { status: row.status, txHash })),
    });
    if (outcome.status === "failed") return fail(row, outcome.reason, outcome.txHash ?? null, outcome.gasCost ?? null);
    if (outcome.status === "submitted") {
      await updateX402Settlement(db, row.id, { status: "submitted", txHash: outcome.txHash, ...(outcome.gasCost !== undefined && { gasCost: outcome.gasCost }) });
      throw new ServiceUnavailableError(`x402 settlement ${row.id}: transaction ${outcome.txHash} not confirmed yet`);
    }
    const settled = await updateX402Settlement(db, row.id, { status: "settled", ...outcome.transfer });
    logger.info({ settlementId: row.id, paymentId: row.paymentId, txHash: outcome.transfer.txHash }, "x402 payment settled");
    return settled ?? (await findX402Settlement(db, row.id))!;
  }

  /** Records why it cannot settle and closes its payment as failed (it no longer counts against the agent's day). */
  async function fail(row: X402SettlementRow, reason: string, txHash: string | null, gasCost: bigint | null): Promise<X402SettlementRow> {
    const failed = await updateX402Settlement(db, row.id, { status: "failed", errorReason: reason, txHash, gasCost });
    await closePayment(db, row.paymentId, row.merchantId, { status: "failed", reason: `x402 settlement failed: ${reason}` });
    logger.warn({ settlementId: row.id, paymentId: row.paymentId, reason }, "x402 payment did not settle");
    return failed ?? (await findX402Settlement(db, row.id))!;
  }
}
