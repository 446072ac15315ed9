import { erc20Abi, getAddress, isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import { evmClient } from "../../rails/evm/client.ts";
import { parsePaymentSettledLogs } from "../../rails/evm/settlement/index.ts";
import type { Config, Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findMerchantPayment } from "../../db/payments.ts";
import { paymentSubmissions } from "../../db/schema/index.ts";
import { NotFoundError, ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { reconcilePayments } from "../../reconcile/reconcilePayments.ts";

/**
 * Verifies a transaction a client says pays a payment, from its receipt: a
 * `PaymentSettled` of this payment's intent from its settlement contract, or a
 * transfer of its token to its deposit address. A match is recorded and the payment
 * reconciled at once; anything else is a 400 and never a credit.
 */
export async function processPayment(deps: { config: Config; db: Db }, auth: { merchantId: string; mode: Mode }, body: { paymentId: string; txHash: string }) {
  const payment = await findMerchantPayment(deps.db, auth.merchantId, auth.mode, body.paymentId);
  if (!payment) throw new NotFoundError(`No payment with id ${body.paymentId}.`);
  const network = deps.config.networks.find((n) => n.chainId === payment.chainId && n.enabled);
  if (!network || network.type !== "evm") throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);

  const client = evmClient(network, deps.config.rpcTimeoutMs * 5);
  const hash = body.txHash as Hex;
  const receipt = await client.getTransactionReceipt({ hash }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError") {
      throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${hash} was not found on ${network.name} (not mined yet?)`);
    }
    throw new ServiceUnavailableError(`Could not read the transaction from ${network.name}: ${error.message.split("\n")[0]}`);
  });
  if (receipt.status !== "success") throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${hash} reverted`);

  const token = getAddress(payment.tokenAddress);
  const credits: Array<{ logIndex: number; amount: bigint }> = [];
  if (payment.contractAddress) {
    for (const e of parsePaymentSettledLogs(receipt.logs, { settlementAddress: getAddress(payment.contractAddress) })) {
      if (e.paymentId === payment.id && isAddressEqual(e.token, token) && isAddressEqual(e.merchant, payment.merchantWallet as Address)) {
        credits.push({ logIndex: e.logIndex, amount: e.amount });
      }
    }
  }
  if (payment.receiveAddress) {
    const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
    for (const t of transfers) {
      if (isAddressEqual(t.address, token) && isAddressEqual(t.args.to, payment.receiveAddress as Address)) {
        credits.push({ logIndex: t.logIndex, amount: t.args.value });
      }
    }
  }
  if (credits.length === 0) {
    throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${hash} does not pay payment ${payment.id}`);
  }

  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  await deps.db
    .insert(paymentSubmissions)
    .values(
      credits.map((c) => ({
        paymentId: payment.id,
        chainId: payment.chainId,
        txHash: hash.toLowerCase(),
        logIndex: c.logIndex,
        blockNumber: receipt.blockNumber,
        blockTimestamp: new Date(Number(block.timestamp) * 1000),
        amount: c.amount,
      })),
    )
    .onConflictDoNothing();
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  return (await findMerchantPayment(deps.db, auth.merchantId, auth.mode, payment.id))!;
}
