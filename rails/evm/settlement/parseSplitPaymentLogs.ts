import { type Address, type Hex, type Log, isAddressEqual, parseEventLogs } from "viem";
import { paymentSettlementAbi } from "../../../contracts/artifacts/index.ts";
import type { SplitPaymentParams } from "../../../domain/splitPayment.ts";

/** One `SplitPaymentExecuted` as the chain says it: whoever called, with whatever params. */
export type SplitPaymentExecuted = {
  key: Hex;
  payer: Address;
  /** The params as called, in the SDK's JSON shape (addresses checksummed, amount as a string). */
  params: SplitPaymentParams;
  /** What the recipients' balances rose by in all, smallest units. */
  received: bigint;
  logIndex: number;
};

/** The `SplitPaymentExecuted` events among `logs` emitted by `settlementAddress` (any contract can emit one with that signature). */
export function parseSplitPaymentLogs(logs: Log<bigint, number, false>[], settlementAddress: Address): SplitPaymentExecuted[] {
  const fromSettlement = logs.filter((log) => isAddressEqual(log.address, settlementAddress));
  return parseEventLogs({ abi: paymentSettlementAbi, eventName: "SplitPaymentExecuted", logs: fromSettlement }).map((log) => {
    const p = log.args.params;
    return {
      key: log.args.key,
      payer: log.args.payer,
      params: {
        token: p.token,
        amount: p.amount.toString(),
        paymentId: p.paymentId,
        recipient1: p.recipient1,
        recipient2: p.recipient2,
        recipient3: p.recipient3,
        recipient1Percentage: Number(p.recipient1Percentage),
        recipient2Percentage: Number(p.recipient2Percentage),
        recipient3Percentage: Number(p.recipient3Percentage),
      },
      received: log.args.received,
      logIndex: log.logIndex,
    };
  });
}

/**
 * Whether an event's params are exactly those the service issued (`asked`): token, amount,
 * payment id, every recipient and every share. Anything else paid whoever it named and
 * credits nothing. Addresses compare case-insensitively; percentages as integers.
 */
export function isIssuedSplit(called: SplitPaymentParams, asked: SplitPaymentParams): boolean {
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  return (
    same(called.token, asked.token) &&
    BigInt(called.amount) === BigInt(asked.amount) &&
    called.paymentId === asked.paymentId &&
    same(called.recipient1, asked.recipient1) &&
    same(called.recipient2, asked.recipient2) &&
    same(called.recipient3, asked.recipient3) &&
    BigInt(called.recipient1Percentage) === BigInt(asked.recipient1Percentage) &&
    BigInt(called.recipient2Percentage) === BigInt(asked.recipient2Percentage) &&
    BigInt(called.recipient3Percentage) === BigInt(asked.recipient3Percentage)
  );
}
