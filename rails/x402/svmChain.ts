import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { SETTLEMENT_PENDING } from "../../domain/x402.ts";
import { solanaConnection } from "../solana/connection.ts";
import { tokenAccountBalance } from "../solana/tokenAccountBalance.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "../solana/tokenAccounts.ts";
import type { SettleOutcome, X402Chain } from "./chains.ts";
import { operatorSignature, svmOperator } from "./svmOperator.ts";
import { SVM_LIMITS } from "./svmLimits.ts";
import { computeBudgetProblem, svmTransferOf } from "./svmPayload.ts";
import { signatureState, svmSettlementTransfer } from "./svmSettlement.ts";

/**
 * How long a Solana payment stays payable: its transaction's blockhash lasts about a minute
 * (150 slots); past this it has landed or never will (the payment then expires).
 */
const SVM_PAYMENT_TTL_S = 180n;

/**
 * x402 `exact` on Solana: the payer's partially signed SPL `transferChecked`, which the
 * operator co-signs as fee payer and sends. Its key is the message's hash: the same
 * transaction lands at most once (the cluster refuses a signature it has seen).
 */
export const svmX402: X402Chain = {
  payerOf: (payload) => svmTransferOf(payload)?.payer,
  keyOf(payload) {
    const transfer = svmTransferOf(payload);
    return transfer ? { payer: transfer.payer, nonce: transfer.nonce } : undefined;
  },
  // Base58 is case-sensitive: two spellings are two accounts.
  sameAddress: (a, b) => typeof a === "string" && a === b,
  // Paid straight to the merchant's wallet, as Solana Pay is: no service fee is taken on Solana.
  destination: (network, wallet) => ({
    payTo: wallet,
    merchantWallet: wallet,
    collectsFee: false,
    reason: "pay_to_not_merchant_wallet",
    message: `payTo must be the merchant's settlement wallet on ${network.shortName}.`,
  }),
  authorization(payload) {
    // The transfer's mint, destination and amount are x402's own checks (verify), against the requirements checked here.
    const transfer = svmTransferOf(payload);
    if (!transfer) return { ok: false, reason: "unsupported_payload", message: "Only a partially signed SPL transfer (x402 exact on Solana) is settled here." };
    const budget = computeBudgetProblem(transfer.transaction);
    if (budget) {
      const message = `The transfer's compute budget is more than this facilitator pays for (at most ${SVM_LIMITS.maxComputeUnits} units at ${SVM_LIMITS.maxPriorityFeeMicroLamports} micro-lamports each): ${budget}.`;
      return { ok: false, reason: "invalid_exact_svm_payload_transaction_compute_budget", message };
    }
    return { ok: true, payer: transfer.payer, nonce: transfer.nonce, validBefore: BigInt(Math.floor(Date.now() / 1000)) + SVM_PAYMENT_TTL_S };
  },
  replayReason: "duplicate_settlement",
  payerBalance: async (config, network, token, payer) => {
    const account = associatedTokenAccount(payer, token, tokenProgramOf(tokenOfMint(network, token)));
    return tokenAccountBalance(solanaConnection(network, "confirmed", config.rpcTimeoutMs), account, null);
  },
  // The same share of the native coin as X402_DAILY_GAS_CAP_WEI (18 decimals) is of ether: SOL has 9.
  dailyFeeCap: (config) => config.x402.dailyGasCapWei / 10n ** 9n,
  // The operator signs as the transfer's fee payer, named in the requirements: no contract to be the settler of.
  settlerProblem: async () => null,

  /**
   * The transaction's id is known before it is sent (the operator's signature), and recorded
   * first: a re-run looks it up on chain and sends only what never landed while its blockhash
   * still lets it land — resent, it is the same transaction, which lands at most once.
   */
  async settle(ctx, network, row): Promise<SettleOutcome> {
    const connection = solanaConnection(network, "confirmed", ctx.config.rpcTimeoutMs);
    const transfer = svmTransferOf((row.payload as { payload?: unknown }).payload);
    if (!transfer) return { status: "failed", reason: "unsupported_payload" };
    const signature = row.txHash ?? (await operatorSignature(await svmOperator(ctx.config), transfer.transaction));
    if (row.txHash === null) await ctx.recordSigned(signature);
    let state = await signatureState(connection, signature);
    if (state === null) {
      const { value: open } = await connection.isBlockhashValid(transfer.blockhash, { commitment: "processed" });
      if (!open) return { status: "failed", reason: "transaction_expired" };
      const result = await (await ctx.facilitator()).settle(row.payload as unknown as PaymentPayload, row.requirements as unknown as PaymentRequirements);
      state = await signatureState(connection, signature);
      // Refused, or failed to send: unless it landed meanwhile, it cannot settle.
      if (state === null && !result.success && result.errorReason !== SETTLEMENT_PENDING) return { status: "failed", reason: result.errorReason ?? "unexpected_settle_error" };
    }
    if (state === null || state === "pending") return { status: "submitted", txHash: signature };
    const paid = await svmSettlementTransfer(connection, network, row, signature);
    if (paid === "unmined") return { status: "submitted", txHash: signature };
    if ("reverted" in paid) return { status: "failed", reason: "transaction_failed", txHash: signature, gasCost: paid.gasCost };
    return { status: "settled", transfer: paid };
  },
};
