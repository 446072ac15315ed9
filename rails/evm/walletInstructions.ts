import { getAddress, type Hex } from "viem";
import type { PaymentRow } from "../../db/schema/index.ts";
import { erc20TransferUri } from "../../domain/paymentUri.ts";
import { encodePaymentTransactions, paymentIdToBytes32 } from "./settlement/index.ts";

/**
 * What the customer's wallet needs for a contract payment: the signed intent and the two
 * calls (approve, pay); and, for the client SDK, the `splitPayment` call the service issued
 * with the split it reads (the merchant's and the fee wallet's shares in basis points).
 */
export function walletInstructions(p: PaymentRow) {
  if (!p.contractAddress || !p.intentSignature || !p.intentDeadline) return null;
  const intent = {
    paymentId: paymentIdToBytes32(p.id),
    merchant: getAddress(p.merchantWallet),
    token: getAddress(p.tokenAddress),
    amount: p.amount,
    fee: p.feeAmount,
    feeRecipient: getAddress(p.feeRecipient ?? p.merchantWallet),
    deadline: BigInt(Math.floor(p.intentDeadline.getTime() / 1000)),
  };
  const txs = encodePaymentTransactions({
    settlementAddress: getAddress(p.contractAddress),
    token: intent.token,
    intent,
    signature: p.intentSignature as Hex,
  });
  return {
    intent: { ...intent, amount: intent.amount.toString(), fee: intent.fee.toString(), deadline: intent.deadline.toString() },
    signature: p.intentSignature,
    // Send in order: approve the contract for the amount, then pay (or payWithPermit, see /payments/contract).
    transactions: [
      { description: "approve", to: txs.approve.to, data: txs.approve.data, value: "0" },
      { description: "pay", to: txs.pay.to, data: txs.pay.data, value: "0" },
    ],
    ...(p.contractCall && {
      contractCall: p.contractCall,
      merchantPercentage: p.contractCall.params.recipient1Percentage,
      coinleyWallet: p.contractCall.params.recipient2,
      coinleyPercentage: p.contractCall.params.recipient2Percentage,
    }),
  };
}

/** EIP-681 URI of a plain token transfer to the payment's receive address (what a QR code holds). */
export const paymentUri = (p: PaymentRow): string | null =>
  p.receiveAddress ? erc20TransferUri({ token: getAddress(p.tokenAddress), chainId: p.chainId, to: getAddress(p.receiveAddress), amount: p.amount }) : null;
