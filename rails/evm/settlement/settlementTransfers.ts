import { erc20Abi, isAddressEqual, parseEventLogs, toEventSelector, type Address, type Log } from "viem";
import { paymentSettlementAbi } from "../../../contracts/artifacts/index.ts";

/** A `Transfer` of the paid token by the payer inside one settlement, as the indexer records it (amount: decimal string, smallest units). */
export type SettlementTransfer = { to: string; amount: string };

const SETTLED = toEventSelector(paymentSettlementAbi.find((item) => item.type === "event" && item.name === "PaymentSettled")!);

/**
 * What one `PaymentSettled` actually moved: the paid token's `Transfer` logs from the payer
 * emitted inside that `pay` call — after the contract's previous `PaymentSettled` in the
 * transaction (several intents can settle in one) and before this one. The event states
 * the intent's amount; a fee-on-transfer token (USDT has the switch) delivers less, and
 * its fee goes out in a `Transfer` of its own to a collector, which the credit then leaves
 * out (`settledCredit`: only what reached the merchant and the fee recipient counts).
 */
export function settlementTransfers(
  logs: readonly Log<bigint, number, false>[],
  settled: { logIndex: number; contract: Address; token: Address; payer: Address },
): SettlementTransfer[] {
  const previous = Math.max(
    -1,
    ...logs.filter((l) => l.logIndex < settled.logIndex && l.topics[0] === SETTLED && isAddressEqual(l.address, settled.contract)).map((l) => l.logIndex),
  );
  const inside = logs.filter((l) => l.logIndex > previous && l.logIndex < settled.logIndex && isAddressEqual(l.address, settled.token) && l.topics.length === 3);
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: inside as Log[], strict: true })
    .filter((t) => isAddressEqual(t.args.from, settled.payer))
    .map((t) => ({ to: t.args.to.toLowerCase(), amount: t.args.value.toString() }));
}

/**
 * The credit of a settlement: what its transfers delivered to the merchant and the fee
 * recipient, never more than the intent's amount. (`rails/evm/readModel/evidence.ts` says
 * the same in SQL for indexed rows.)
 */
export function settledCredit(amount: bigint, transfers: readonly SettlementTransfer[], recipients: readonly string[]): bigint {
  const to = new Set(recipients.map((r) => r.toLowerCase()));
  const delivered = transfers.filter((t) => to.has(t.to.toLowerCase())).reduce((sum, t) => sum + BigInt(t.amount), 0n);
  return delivered < amount ? delivered : amount;
}
