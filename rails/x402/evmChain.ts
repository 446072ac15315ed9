import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { erc20Abi, getAddress, isAddress, type Hex } from "viem";
import { SETTLEMENT_PENDING } from "../../domain/x402.ts";
import { evmClient } from "../evm/client.ts";
import type { X402Chain } from "./chains.ts";
import { settlementTransfer, usedAuthorizationTx } from "./settlementEvidence.ts";

type Authorization = Record<string, unknown> | undefined;
const authorizationOf = (payload: unknown): Authorization => (payload as { authorization?: Record<string, unknown> } | null)?.authorization;
const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/**
 * x402 `exact` on EVM: an EIP-3009 `transferWithAuthorization` signed by the payer, which the
 * operator submits (paying the gas). Its key is the token's (payer, nonce) pair, used once on chain.
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
  authorization(payload, payTo, amount) {
    const authorization = authorizationOf(payload);
    const payer = evmX402.payerOf(payload);
    if (!authorization || !payer) return { ok: false, reason: "unsupported_payload", message: "Only EIP-3009 authorizations (transferWithAuthorization) are settled here." };
    const { nonce, validBefore } = authorization;
    if (typeof nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return { ok: false, reason: "invalid_payload", message: "The authorization's nonce must be 32 bytes of hex." };
    if (!same(authorization.to, payTo)) return { ok: false, reason: "pay_to_not_merchant_wallet", message: "The authorization does not pay the merchant's settlement wallet." };
    if (authorization.value !== amount) return { ok: false, reason: "invalid_amount", message: "The authorization's value is not the required amount." };
    if (!/^\d{1,20}$/.test(String(validBefore))) return { ok: false, reason: "invalid_payload", message: "The authorization's validBefore must be a unix time in seconds." };
    return { ok: true, payer, nonce: nonce.toLowerCase(), validBefore: BigInt(String(validBefore)) };
  },
  replayReason: "invalid_exact_evm_payload_authorization_nonce_used",
  payerBalance: (config, network, token, payer) =>
    evmClient(network, config.rpcTimeoutMs).readContract({ address: token as Hex, abi: erc20Abi, functionName: "balanceOf", args: [payer as Hex] }),
  dailyFeeCap: (config) => config.x402.dailyGasCapWei,

  /**
   * Sends `transferWithAuthorization` through x402's facilitator (verified again, simulated,
   * receipt awaited), then records the Transfer log it left. An authorization already used on
   * chain (a run that crashed after sending, or anyone who submitted it first) is never sent
   * again: its transaction is looked up and recorded instead.
   */
  async settle(ctx, network, row) {
    const client = evmClient(network, ctx.config.rpcTimeoutMs);
    let txHash: Hex | "used" | null = (row.txHash as Hex | null) ?? (await usedAuthorizationTx(client, row));
    if (txHash === null) {
      const result = await (await ctx.facilitator()).settle(row.payload as unknown as PaymentPayload, row.requirements as unknown as PaymentRequirements);
      if (result.success || (result.errorReason === SETTLEMENT_PENDING && result.transaction)) txHash = result.transaction as Hex;
      // Refused or reverted: unless the authorization was used meanwhile (by anyone), it cannot settle.
      else txHash = await usedAuthorizationTx(client, row);
      if (txHash === null) return { status: "failed", reason: result.errorReason ?? "unexpected_settle_error" };
    }
    if (txHash === "used") return { status: "failed", reason: evmX402.replayReason };
    const transfer = await settlementTransfer(client, row, txHash);
    if (transfer === "unmined") return { status: "submitted", txHash };
    if ("reverted" in transfer) return { status: "failed", reason: "transaction_failed", txHash, gasCost: transfer.gasCost };
    return { status: "settled", transfer: { ...transfer, credited: row.amount } };
  },
};
