import type { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Job } from "bullmq";
import type { Hex } from "viem";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { findX402Settlement, updateX402Settlement, type X402SettlementRow } from "../db/x402Settlements.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { SETTLEMENT_PENDING } from "../domain/x402.ts";
import { closePayment, reconcilePayments } from "../reconcile/index.ts";
import { evmClient } from "../rails/evm/client.ts";
import { buildFacilitator, operatorEvmSigner } from "../rails/x402/index.ts";
import { settlementTransfer, usedAuthorizationTx } from "../rails/x402/settlementEvidence.ts";
import type { JobPayloads } from "./queues.ts";

export type X402SettleDeps = { config: Config; db: Db; logger: Logger; databaseUrl: string; operatorKey: Hex };

/**
 * `x402-settle`: submits an x402 authorization with the operator's key (x402's own `exact`
 * facilitator: verifies again, sends `transferWithAuthorization`, waits for the receipt),
 * records the Transfer log it left, then reconciles the payment (retried until ingest has its
 * block; dispatch then follows it through its confirmations). Safe to run again at any point: an authorization already
 * used on chain is never sent twice — its transaction is looked up and recorded instead.
 */
export function x402Settle(deps: X402SettleDeps) {
  const { config, db, logger } = deps;
  let facilitator: x402Facilitator | undefined;
  const facilitatorOf = () =>
    (facilitator ??= buildFacilitator(config, (network) => operatorEvmSigner(network, deps.operatorKey, deps.databaseUrl, config.x402.confirmationTimeoutMs)));

  return async (job: Job<JobPayloads["x402-settle"]>) => {
    const row = await findX402Settlement(db, job.data.settlementId);
    if (!row) return { status: "missing" };
    const recorded = row.status === "settled" || row.status === "failed" ? row : await settle(row);
    if (recorded.status === "failed") return { status: "failed", reason: recorded.errorReason };
    // Once confirming, dispatch carries it on with each new head (as every confirming payment);
    // still pending, ingest has not reached its block yet: this job looks again.
    const after = (await reconcilePayments(db, config, [row.paymentId])).get(row.paymentId)?.after;
    if (after?.status === "pending") throw new ServiceUnavailableError(`x402 payment ${row.paymentId}: its block is not indexed yet`);
    return { status: after?.status ?? "missing", transaction: recorded.txHash };
  };

  async function settle(row: X402SettlementRow): Promise<X402SettlementRow> {
    const network = config.networks.find((n) => n.chainId === row.chainId && n.enabled);
    if (!network) throw new ServiceUnavailableError(`x402 settlement ${row.id}: network ${row.chainId} is not enabled`);
    const client = evmClient(network, config.rpcTimeoutMs);
    let txHash: Hex | "used" | null = (row.txHash as Hex | null) ?? (await usedAuthorizationTx(client, row));
    if (txHash === null) {
      const result = await facilitatorOf().settle(row.payload as unknown as PaymentPayload, row.requirements as unknown as PaymentRequirements);
      if (result.success || (result.errorReason === SETTLEMENT_PENDING && result.transaction)) txHash = result.transaction as Hex;
      // Refused or reverted: unless the authorization was used meanwhile (by anyone), it cannot settle.
      else txHash = await usedAuthorizationTx(client, row);
      if (txHash === null) return fail(row, result.errorReason ?? "unexpected_settle_error");
    }
    if (txHash === "used") return fail(row, "invalid_exact_evm_payload_authorization_nonce_used");
    const transfer = await settlementTransfer(client, row, txHash);
    if (transfer === "unmined") {
      await updateX402Settlement(db, row.id, { status: "submitted", txHash });
      throw new ServiceUnavailableError(`x402 settlement ${row.id}: transaction ${txHash} not mined yet`);
    }
    if ("reverted" in transfer) return fail(row, "transaction_failed", txHash, transfer.gasCost);
    const settled = await updateX402Settlement(db, row.id, { status: "settled", ...transfer });
    logger.info({ settlementId: row.id, paymentId: row.paymentId, txHash }, "x402 authorization settled");
    return settled ?? (await findX402Settlement(db, row.id))!;
  }

  /** Records why it cannot settle and closes its payment as failed (it no longer counts against the agent's day). */
  async function fail(row: X402SettlementRow, reason: string, txHash: Hex | null = null, gasCost: bigint | null = null): Promise<X402SettlementRow> {
    const failed = await updateX402Settlement(db, row.id, { status: "failed", errorReason: reason, txHash, gasCost });
    await closePayment(db, row.paymentId, row.merchantId, { status: "failed", reason: `x402 settlement failed: ${reason}` });
    logger.warn({ settlementId: row.id, paymentId: row.paymentId, reason }, "x402 authorization did not settle");
    return failed ?? (await findX402Settlement(db, row.id))!;
  }
}
