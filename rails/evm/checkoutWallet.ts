import { encodeFunctionData, erc20Abi, getAddress, toHex } from "viem";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { CheckoutWallet } from "../types.ts";
import { walletInstructions } from "./walletInstructions.ts";

/**
 * What the checkout page's "Pay with wallet" button sends through the browser's
 * EIP-1193 wallet, for what the payment still needs now: approve + pay through the
 * settlement contract for a contract payment nothing has reached yet, else a plain
 * transfer of the remaining amount to the payment's address (deposit payments, and a
 * contract payment already partly paid by QR, which the contract's fixed amount would
 * overpay). Null once nothing more is to be sent.
 */
export function checkoutWallet(p: PaymentRow): CheckoutWallet | null {
  if (p.status !== "pending" || p.amountRemaining <= 0n) return null;
  const chain = toHex(BigInt(p.chainId));
  const token = getAddress(p.tokenAddress);
  const instructions = p.kind === "payment" && p.amountReceived === 0n ? walletInstructions(p) : null;
  if (instructions) return { protocol: "eip1193", chain, token, amount: p.amount.toString(), transactions: instructions.transactions };
  if (!p.receiveAddress) return null;
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [getAddress(p.receiveAddress), p.amountRemaining] });
  return { protocol: "eip1193", chain, token, amount: p.amountRemaining.toString(), transactions: [{ description: "transfer", to: token, data, value: "0" }] };
}
