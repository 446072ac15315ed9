import { encodeFunctionData, erc20Abi, getAddress, toHex } from "viem";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { CheckoutWallet } from "../types.ts";
import { walletInstructions } from "./walletInstructions.ts";

/** Time a customer needs to approve, have it mined, and send `pay` before the intent's deadline. */
export const INTENT_MARGIN_MS = 180_000;

/**
 * What the checkout page's "Pay with wallet" button sends through the browser's
 * EIP-1193 wallet, for what the payment still needs now: approve + pay through the
 * settlement contract for a contract payment nothing has reached yet, else a plain
 * transfer of the remaining amount to the payment's address (deposit payments, and a
 * contract payment already partly paid by QR, which the contract's fixed amount would
 * overpay). Null once nothing more is to be sent.
 *
 * The transfer too when the signed intent is about to lapse: the contract refuses `pay`
 * after its deadline (the approval would be mined and paid for, then `pay` revert), and a
 * payment's expiry can move past the deadline when it is extended for a stalled chain.
 * A transfer to the payment's address counts until the payment expires.
 */
export function checkoutWallet(p: PaymentRow, now: Date): CheckoutWallet | null {
  if (p.status !== "pending" || p.amountRemaining <= 0n) return null;
  const chain = toHex(BigInt(p.chainId));
  const token = getAddress(p.tokenAddress);
  const intentLasts = p.intentDeadline !== null && p.intentDeadline.getTime() - now.getTime() >= INTENT_MARGIN_MS;
  const instructions = p.kind === "payment" && p.amountReceived === 0n && intentLasts ? walletInstructions(p) : null;
  if (instructions) return { protocol: "eip1193", chain, token, amount: p.amount.toString(), transactions: instructions.transactions };
  if (!p.receiveAddress) return null;
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [getAddress(p.receiveAddress), p.amountRemaining] });
  return { protocol: "eip1193", chain, token, amount: p.amountRemaining.toString(), transactions: [{ description: "transfer", to: token, data, value: "0" }] };
}
