import { erc20Abi, getAddress, isAddress, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import type { Network } from "../../config/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";
import { evmClient } from "../evm/client.ts";
import type { SettleContext, X402Chain } from "./chains.ts";
import { sendSettlement, sendSimulated, simulateSettlement, type SettlementRefused } from "./sendSettlement.ts";
import { settlerProblem } from "./settlerProblem.ts";
import { movedIntoContract, settledAuthorizationTx, settlementTransfer, usedAuthorizationTx } from "./settlementEvidence.ts";

/** How often a settlement's receipt is looked for while the worker waits for it (X402_CONFIRMATION_TIMEOUT_MS), once each new block. */
const RECEIPT_POLL_MS = 100;

/** The first looks for a receipt, before waiting on blocks: a chain that includes at once (an L2's sequencer, anvil) answers within them. */
const EARLY_LOOKS_MS = [0, 1, 2, 4, 8, 16, 32];

/**
 * The settlement's receipt, or null past `timeoutMs`: looked for a few times in its first
 * ~60 ms, then with each new block (viem's wait, whose block watch all waits share).
 */
async function receiptOf(client: PublicClient, hash: Hex, timeoutMs: number): Promise<TransactionReceipt | null> {
  for (const delay of EARLY_LOOKS_MS) {
    if (delay > 0) await Bun.sleep(delay);
    const receipt = await client.getTransactionReceipt({ hash }).catch(() => null);
    if (receipt) return receipt;
  }
  return client.waitForTransactionReceipt({ hash, timeout: timeoutMs, pollingInterval: RECEIPT_POLL_MS }).catch(() => null);
}

type Authorization = Record<string, unknown> | undefined;
const authorizationOf = (payload: unknown): Authorization => (payload as { authorization?: Record<string, unknown> } | null)?.authorization;
const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/**
 * x402 `exact` on EVM: an EIP-3009 `transferWithAuthorization` signed by the payer to the
 * network's settlement contract, which the operator (its settler) has the contract pull and
 * pass on — the merchant's wallet the amount less the service fee, the fee recipient the fee —
 * paying the gas. Its key is the token's (payer, nonce) pair, used once on chain.
 */
export const evmX402: X402Chain = {
  payerOf(payload) {
    const from = authorizationOf(payload)?.from;
    return typeof from === "string" && isAddress(from) ? getAddress(from) : undefined;
  },
  keyOf(payload) {
    const nonce = authorizationOf(payload)?.nonce;
    const payer = evmX402.payerOf(payload);
    return payer && typeof nonce === "string" ? { payer, nonce: nonce.toLowerCase() } : undefined;
  },
  sameAddress: same,
  destination: (network, wallet) => ({
    payTo: network.settlementContract ? getAddress(network.settlementContract) : null,
    merchantWallet: isAddress(wallet) ? getAddress(wallet) : wallet,
    collectsFee: true,
    reason: "pay_to_not_settlement_contract",
    message: `payTo must be the settlement contract on ${network.shortName} (${network.settlementContract}).`,
  }),
  authorization(payload, payTo, amount) {
    const authorization = authorizationOf(payload);
    const payer = evmX402.payerOf(payload);
    if (!authorization || !payer) return { ok: false, reason: "unsupported_payload", message: "Only EIP-3009 authorizations (transferWithAuthorization) are settled here." };
    const { nonce, validBefore } = authorization;
    if (typeof nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return { ok: false, reason: "invalid_payload", message: "The authorization's nonce must be 32 bytes of hex." };
    if (!same(authorization.to, payTo)) return { ok: false, reason: "pay_to_not_settlement_contract", message: "The authorization does not pay the settlement contract." };
    if (authorization.value !== amount) return { ok: false, reason: "invalid_amount", message: "The authorization's value is not the required amount." };
    if (!/^\d{1,20}$/.test(String(validBefore))) return { ok: false, reason: "invalid_payload", message: "The authorization's validBefore must be a unix time in seconds." };
    return { ok: true, payer, nonce: nonce.toLowerCase(), validBefore: BigInt(String(validBefore)) };
  },
  replayReason: "invalid_exact_evm_payload_authorization_nonce_used",
  payerBalance: (config, network, token, payer) =>
    evmClient(network, config.rpcTimeoutMs).readContract({ address: token as Hex, abi: erc20Abi, functionName: "balanceOf", args: [payer as Hex] }),
  dailyFeeCap: (config) => config.x402.dailyGasCapWei,
  settlerProblem,

  /**
   * Has the settlement contract pull the authorization and pass it on (`sendSettlement.ts`),
   * and records its `AuthorizationSettled`. Never sent twice: a transaction already recorded,
   * or one in which the contract passed this authorization on (a run that crashed after
   * sending), is looked up instead. Front-run (someone submitted the authorization to the
   * token directly, so our transaction reverted), the money sits in the contract and is passed
   * on from there; both transactions' gas counts against the operator's cap.
   */
  async settle(ctx, network, row) {
    const client = evmClient(network, ctx.config.rpcTimeoutMs);
    let txHash = row.txHash as Hex | null;
    let receipt: TransactionReceipt | null = null;
    if (txHash === null) {
      // Unused at the token, it was in no mined settlement (one uses it): nothing to look up, and
      // the settlement simulated meanwhile (as unused: the common case) is the one sent.
      const [used, simulated] = await Promise.all([usedAuthorizationTx(client, row), simulateSettlement(ctx, network, row, ctx.payment, false)]);
      txHash = used === null ? null : await settledAuthorizationTx(client, row);
      if (txHash === null) {
        const sent = used !== null ? await submit(ctx, network, row, used) : "refused" in simulated ? simulated : await sendSimulated(ctx, network, simulated);
        if (typeof sent !== "string") return { status: "failed", reason: sent.refused };
        txHash = sent;
        // Recorded while its receipt is looked for, before it is acted on: a run after a crash
        // looks this transaction up instead of sending again.
        [, receipt] = await Promise.all([ctx.recordSigned(txHash), receiptOf(client, txHash, ctx.config.x402.confirmationTimeoutMs)]);
      }
    }
    const transfer = await settlementTransfer(client, row, txHash, receipt);
    if (transfer === "unmined") return { status: "submitted", txHash };
    const earlierGas = row.gasCost ?? 0n;
    if ("reverted" in transfer) {
      const again = (await settledAuthorizationTx(client, row)) ?? (await submit(ctx, network, row, await usedAuthorizationTx(client, row)));
      if (typeof again !== "string") return { status: "failed", reason: "transaction_failed", txHash, gasCost: transfer.gasCost + earlierGas };
      return { status: "submitted", txHash: again, gasCost: transfer.gasCost + earlierGas };
    }
    return { status: "settled", transfer: { ...transfer, gasCost: transfer.gasCost + earlierGas, credited: row.amount } };
  },
};

/**
 * Sends the settlement, or says why it cannot be. An authorization someone already submitted
 * to the token directly (`used`, its transaction) is passed on from the contract if its money
 * arrived there; one whose nonce was spent otherwise (by the payer) cannot settle. Not verified
 * again by x402's scheme: the settlement contract's call is simulated right before it is sent,
 * and the token's own checks in it (signature, validity window, nonce, balance) are the ones
 * that decide; the API verified it all when the settle was asked for.
 */
async function submit(ctx: SettleContext, network: Network, row: X402SettlementRow, used: Hex | "used" | null): Promise<Hex | SettlementRefused> {
  if (used === "used" || (used !== null && !(await movedIntoContract(evmClient(network, ctx.config.rpcTimeoutMs), row, used)))) return { refused: evmX402.replayReason };
  return sendSettlement(ctx, network, row, ctx.payment, used !== null);
}
