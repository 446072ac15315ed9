import type { x402Facilitator } from "@x402/core/facilitator";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { Job } from "bullmq";
import type { Hex, PublicClient } from "viem";
import type { Config, Network } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { findPayment } from "../db/payments.ts";
import { findX402Settlement, updateX402Settlement, type X402SettlementRow } from "../db/x402Settlements.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import { closePayment, reconcilePayments } from "../reconcile/index.ts";
import { evmClient } from "../rails/evm/client.ts";
import { buildFacilitator, readOnlyEvmSigner } from "../rails/x402/index.ts";
import { sendSettlement } from "../rails/x402/sendSettlement.ts";
import { movedIntoContract, settledAuthorizationTx, settlementTransfer, usedAuthorizationTx } from "../rails/x402/settlementEvidence.ts";
import type { JobPayloads } from "./queues.ts";

export type X402SettleDeps = { config: Config; db: Db; logger: Logger; databaseUrl: string };

/** How often a settlement's receipt is looked for while the job waits for it (X402_CONFIRMATION_TIMEOUT_MS). */
const RECEIPT_POLL_MS = 100;

/**
 * `x402-settle`: verifies an x402 authorization again (x402's own `exact` facilitator:
 * signature, window, balance, simulation), then has the settlement contract pull it and pay
 * the merchant's wallet the amount less the service fee, and the fee recipient the fee, in one
 * transaction sent with the operator's key (the contract's settler); records the contract's
 * `AuthorizationSettled` it left, then reconciles the payment (retried until ingest has its
 * block; dispatch then follows it through its confirmations). Safe to run again at any point:
 * an authorization the contract already passed on is never sent again — its transaction is
 * looked up and recorded instead.
 */
export function x402Settle(deps: X402SettleDeps) {
  const { config, db, logger } = deps;
  let facilitator: x402Facilitator | undefined;
  // Verifying needs only the chain's view: the send is the contract call below, not x402's.
  const facilitatorOf = () => (facilitator ??= buildFacilitator(config, (network) => readOnlyEvmSigner(network, config.operatorAddress)));

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
    let txHash = (row.txHash as Hex | null) ?? (await settledAuthorizationTx(client, row));
    if (txHash === null) {
      const sent = await submit(row, network, client);
      if (typeof sent !== "string") return fail(row, sent.refused);
      txHash = sent;
      // Recorded before waiting: a run after a crash looks this transaction up instead of sending again.
      await updateX402Settlement(db, row.id, { status: "submitted", txHash });
      await client.waitForTransactionReceipt({ hash: txHash, timeout: config.x402.confirmationTimeoutMs, pollingInterval: RECEIPT_POLL_MS }).catch(() => null);
    }
    const transfer = await settlementTransfer(client, row, txHash);
    if (transfer === "unmined") {
      await updateX402Settlement(db, row.id, { status: "submitted", txHash });
      throw new ServiceUnavailableError(`x402 settlement ${row.id}: transaction ${txHash} not mined yet`);
    }
    if ("reverted" in transfer) {
      // Front-run: someone took the authorization from our transaction and submitted it to the
      // token directly. Its money is in the contract then, and is passed on from there.
      const again = (await settledAuthorizationTx(client, row)) ?? (await submit(row, network, client));
      if (typeof again !== "string") return fail(row, "transaction_failed", txHash, transfer.gasCost + (row.gasCost ?? 0n));
      await updateX402Settlement(db, row.id, { status: "submitted", txHash: again, gasCost: transfer.gasCost + (row.gasCost ?? 0n) });
      throw new ServiceUnavailableError(`x402 settlement ${row.id}: ${txHash} reverted; settling again in ${again}`);
    }
    // Gas of an earlier transaction that reverted (a front-run) counts against the cap as well.
    const settled = await updateX402Settlement(db, row.id, { status: "settled", ...transfer, gasCost: transfer.gasCost + (row.gasCost ?? 0n) });
    logger.info({ settlementId: row.id, paymentId: row.paymentId, txHash }, "x402 authorization settled");
    return settled ?? (await findX402Settlement(db, row.id))!;
  }

  /**
   * Sends the settlement, or says why it cannot be. An authorization someone already submitted
   * to the token directly is passed on from the contract if its money arrived there; one whose
   * nonce was spent otherwise (by the payer) cannot settle.
   */
  async function submit(row: X402SettlementRow, network: Network, client: PublicClient): Promise<Hex | { refused: string }> {
    const used = await usedAuthorizationTx(client, row);
    if (used === "used" || (used !== null && !(await movedIntoContract(client, row, used)))) return { refused: "invalid_exact_evm_payload_authorization_nonce_used" };
    if (used === null) {
      const verified = await facilitatorOf().verify(row.payload as unknown as PaymentPayload, row.requirements as unknown as PaymentRequirements);
      if (!verified.isValid) return { refused: verified.invalidReason ?? "invalid_payload" };
    }
    const payment = await findPayment(db, row.paymentId);
    if (!payment) throw new Error(`x402 settlement ${row.id}: payment ${row.paymentId} is missing`);
    return sendSettlement(deps, network, row, payment, used !== null);
  }

  /** Records why it cannot settle and closes its payment as failed (it no longer counts against the agent's day). */
  async function fail(row: X402SettlementRow, reason: string, txHash: Hex | null = null, gasCost: bigint | null = null): Promise<X402SettlementRow> {
    const failed = await updateX402Settlement(db, row.id, { status: "failed", errorReason: reason, txHash, gasCost });
    await closePayment(db, row.paymentId, row.merchantId, { status: "failed", reason: `x402 settlement failed: ${reason}` });
    logger.warn({ settlementId: row.id, paymentId: row.paymentId, reason }, "x402 authorization did not settle");
    return failed ?? (await findX402Settlement(db, row.id))!;
  }
}
