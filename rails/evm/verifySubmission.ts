import { erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import type { Network } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import type { RailContext, SubmittedCredit } from "../types.ts";
import { evmClient } from "./client.ts";
import { isIssuedSplit, parsePaymentSettledLogs, parseSplitPaymentLogs, settledCredit, settlementTransfers } from "./settlement/index.ts";

/**
 * What a submitted transaction pays a payment, from its receipt: a `PaymentSettled` of
 * this payment's intent from its settlement contract (for its token and merchant; what
 * its token Transfers delivered to merchant and fee recipient, at most the intent), a
 * `SplitPaymentExecuted` with exactly the params the service issued for it (what the
 * recipients received), or a transfer of its token to its receive address. Anything else
 * pays nothing.
 */
export async function verifySubmission(ctx: RailContext, payment: PaymentRow, network: Network, transaction: string): Promise<SubmittedCredit[]> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(transaction)) {
    throw new ValidationError("txHash", `Invalid field 'txHash': ${network.name} transactions are 0x + 64 hex digits`);
  }
  const client = evmClient(network, ctx.config.rpcTimeoutMs * 5);
  const hash = transaction.toLowerCase() as Hex;
  const receipt = await client.getTransactionReceipt({ hash }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError") {
      throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${transaction} was not found on ${network.name} (not mined yet?)`);
    }
    throw new ServiceUnavailableError(`Could not read the transaction from ${network.name}: ${error.message.split("\n")[0]}`);
  });
  if (receipt.status !== "success") throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${transaction} reverted`);

  const token = getAddress(payment.tokenAddress);
  const paid: Array<{ logIndex: number; amount: bigint }> = [];
  if (payment.contractAddress) {
    for (const e of parsePaymentSettledLogs(receipt.logs, { settlementAddress: getAddress(payment.contractAddress) })) {
      if (e.paymentId === payment.id && isAddressEqual(e.token, token) && isAddressEqual(e.merchant, payment.merchantWallet as Address)) {
        // What its token Transfers delivered, as ingest counts it (a fee-on-transfer token delivers less).
        const moved = settlementTransfers(receipt.logs, { logIndex: e.logIndex, contract: getAddress(payment.contractAddress), token, payer: e.payer });
        paid.push({ logIndex: e.logIndex, amount: settledCredit(e.amount, moved, [payment.merchantWallet, payment.feeRecipient ?? payment.merchantWallet]) });
      }
    }
  }
  if (payment.contractCall) {
    for (const e of parseSplitPaymentLogs(receipt.logs, getAddress(payment.contractCall.contractAddress))) {
      if (isIssuedSplit(e.params, payment.contractCall.params) && e.received > 0n) paid.push({ logIndex: e.logIndex, amount: e.received });
    }
  }
  if (payment.receiveAddress) {
    for (const t of parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })) {
      if (isAddressEqual(t.address, token) && isAddressEqual(t.args.to, payment.receiveAddress as Address)) paid.push({ logIndex: t.logIndex, amount: t.args.value });
    }
  }
  if (paid.length === 0) return [];
  // By hash: a node on another branch has another block at that height, with another time.
  const block = await client.getBlock({ blockHash: receipt.blockHash }).catch((error: Error) => {
    throw new ServiceUnavailableError(`Could not read block ${receipt.blockNumber} from ${network.name}: ${error.message.split("\n")[0]}`);
  });
  const blockTimestamp = new Date(Number(block.timestamp) * 1000);
  return paid.map((c) => ({ txHash: hash, logIndex: c.logIndex, blockNumber: receipt.blockNumber, blockTimestamp, amount: c.amount }));
}
