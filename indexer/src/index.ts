import { buildConfig } from "../../plugins/config.ts";
import { ponder } from "ponder:registry";
import { settlementPayment, splitPayment, tokenTransfer } from "ponder:schema";

import { createTransferIngest } from "../../rails/evm/ingest/index.ts";
import { settlementTransfers } from "../../rails/evm/settlement/settlementTransfers.ts";

// Handlers only record what the chain says; reconcile/ accounts from these rows through the
// EVM rail's read model (rails/evm/readModel/).
const transfers = createTransferIngest(buildConfig(process.env));

// Every block: the stablecoin transfers into watched addresses only (rails/evm/ingest/). The
// chain's other transfers are filtered out by the node and never reach this process.
ponder.on("WatchedTransfers:block", async ({ event, context }) => {
  const rows = await transfers.rowsOf(context.chain.id, event.block);
  if (rows.length > 0) await context.db.insert(tokenTransfer).values(rows).onConflictDoNothing();
});

// Every INDEXER_LATE_SCAN_BLOCKS blocks: the range ending here, for transfers into addresses
// of payments expired a while ago (late money), asked once per range instead of every block.
ponder.on("LateTransfers:block", async ({ event, context }) => {
  const rows = await transfers.lateRowsOf(context.chain.id, event.block);
  if (rows.length > 0) await context.db.insert(tokenTransfer).values(rows).onConflictDoNothing();
});

type LoggedEvent = {
  block: { number: bigint; hash: `0x${string}`; timestamp: bigint };
  transaction: { hash: `0x${string}` };
  log: { address: `0x${string}`; logIndex: number };
};

/** Where a contract's log sits, as every row of one records it (its id: chain, transaction, log index). */
const logRow = (chainId: number, event: LoggedEvent) => ({
  id: `${chainId}:${event.transaction.hash}:${event.log.logIndex}`,
  chainId,
  contract: event.log.address,
  blockNumber: event.block.number,
  blockHash: event.block.hash,
  txHash: event.transaction.hash,
  logIndex: event.log.logIndex,
  timestamp: event.block.timestamp,
});

ponder.on("PaymentSettlement:PaymentSettled", async ({ event, context }) => {
  // The receipt's logs: what the settlement's token Transfers moved, not the intent's amount.
  const receipt = await context.client.getTransactionReceipt({ hash: event.transaction.hash });
  const transfers = settlementTransfers(receipt.logs, { logIndex: event.log.logIndex, contract: event.log.address, token: event.args.token, payer: event.args.payer });
  await context.db
    .insert(settlementPayment)
    .values({
      ...logRow(context.chain.id, event),
      paymentId: event.args.paymentId,
      payer: event.args.payer,
      token: event.args.token,
      merchant: event.args.merchant,
      amount: event.args.amount,
      fee: event.args.fee,
      transfers,
    })
    .onConflictDoNothing();
});

// The client SDK's `splitPayment`: recorded whoever called it; reconcile credits a row only
// when its params are the ones the service issued for the payment (rails/evm/readModel/).
// Only params naming a payment id as the service writes it (a lowercase uuid) can ever match a
// payment; any other text (a NUL, megabytes) is the caller's and is not stored.
const ISSUED_PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
ponder.on("PaymentSettlement:SplitPaymentExecuted", async ({ event, context }) => {
  const p = event.args.params;
  if (!ISSUED_PAYMENT_ID.test(p.paymentId)) return;
  await context.db
    .insert(splitPayment)
    .values({
      ...logRow(context.chain.id, event),
      key: event.args.key,
      paymentId: p.paymentId,
      payer: event.args.payer,
      token: p.token,
      amount: p.amount,
      received: event.args.received,
      recipient1: p.recipient1,
      recipient2: p.recipient2,
      recipient3: p.recipient3,
      // The contract refuses any percentage above 10000: these fit an integer.
      recipient1Percentage: Number(p.recipient1Percentage),
      recipient2Percentage: Number(p.recipient2Percentage),
      recipient3Percentage: Number(p.recipient3Percentage),
    })
    .onConflictDoNothing();
});
