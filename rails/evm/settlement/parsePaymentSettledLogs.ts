import { type Address, type Log, isAddressEqual, parseEventLogs } from "viem";
import { paymentSettlementAbi } from "../../../contracts/artifacts/index.ts";
import { bytes32ToPaymentId } from "./bytes32ToPaymentId.ts";

export type PaymentSettled = {
  /** The payment's UUID, or null when the id is not one this service issues. */
  paymentId: string | null;
  payer: Address;
  token: Address;
  merchant: Address;
  /** Total paid, fee included, in the token's smallest unit. */
  amount: bigint;
  fee: bigint;
  logIndex: number;
};

export type ParsePaymentSettledLogsOptions = {
  /**
   * Keep only logs emitted by this contract. Any contract can emit an event with the same
   * signature, so logs not already filtered by address must be filtered here.
   */
  settlementAddress?: Address;
};

/** The `PaymentSettled` events among `logs` (e.g. a receipt's), other logs skipped. */
export function parsePaymentSettledLogs(
  logs: Log<bigint, number, false>[],
  options: ParsePaymentSettledLogsOptions = {},
): PaymentSettled[] {
  const { settlementAddress } = options;
  const fromSettlement = settlementAddress === undefined ? logs : logs.filter((log) => isAddressEqual(log.address, settlementAddress));
  return parseEventLogs({ abi: paymentSettlementAbi, eventName: "PaymentSettled", logs: fromSettlement }).map((log) => ({
    paymentId: bytes32ToPaymentId(log.args.paymentId),
    payer: log.args.payer,
    token: log.args.token,
    merchant: log.args.merchant,
    amount: log.args.amount,
    fee: log.args.fee,
    logIndex: log.logIndex,
  }));
}
