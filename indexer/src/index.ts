import { ponder } from "ponder:registry";
import { settlementPayment, tokenTransfer } from "ponder:schema";
import { transferRow } from "../transferRow.ts";

// Handlers only record what the chain says; reconcile/ accounts from these rows through the
// EVM rail's read model (rails/evm/readModel/).
ponder.on("Stablecoin:Transfer", async ({ event, context }) => {
  await context.db
    .insert(tokenTransfer)
    .values(
      transferRow({
        chainId: context.chain.id,
        blockNumber: event.block.number,
        blockHash: event.block.hash,
        txHash: event.transaction.hash,
        logIndex: event.log.logIndex,
        token: event.log.address,
        from: event.args.from,
        to: event.args.to,
        amount: event.args.value,
        timestamp: event.block.timestamp,
      }),
    )
    .onConflictDoNothing();
});

ponder.on("PaymentSettlement:PaymentSettled", async ({ event, context }) => {
  await context.db
    .insert(settlementPayment)
    .values({
      id: `${context.chain.id}:${event.transaction.hash}:${event.log.logIndex}`,
      chainId: context.chain.id,
      paymentId: event.args.paymentId,
      payer: event.args.payer,
      token: event.args.token,
      merchant: event.args.merchant,
      amount: event.args.amount,
      fee: event.args.fee,
      contract: event.log.address,
      blockNumber: event.block.number,
      blockHash: event.block.hash,
      txHash: event.transaction.hash,
      logIndex: event.log.logIndex,
      timestamp: event.block.timestamp,
    })
    .onConflictDoNothing();
});
