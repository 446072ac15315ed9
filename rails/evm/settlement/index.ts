export { bytes32ToPaymentId } from "./bytes32ToPaymentId.ts";
export { type ComputeDepositAddressParameters, computeDepositAddress } from "./computeDepositAddress.ts";
export { type DeployForwarderFactoryParameters, deployForwarderFactory } from "./deployForwarderFactory.ts";
export { type DeploySettlementParameters, deploySettlement } from "./deploySettlement.ts";
export {
  type EncodePaymentTransactionsParameters,
  type PaymentTransaction,
  type PaymentTransactions,
  encodePaymentTransactions,
} from "./encodePaymentTransactions.ts";
export { ContractDeployError, InvalidPaymentIdError, PaymentTokenMismatchError } from "./errors.ts";
export {
  type ParsePaymentSettledLogsOptions,
  type PaymentSettled,
  parsePaymentSettledLogs,
} from "./parsePaymentSettledLogs.ts";
export { paymentIdToBytes32 } from "./paymentIdToBytes32.ts";
export { paymentIntentTypes, settlementDomain } from "./settlementDomain.ts";
export { type SignPaymentIntentParameters, signPaymentIntent } from "./signPaymentIntent.ts";
export type { PaymentIntent } from "./types.ts";
export { type EncodeDeployAndSweepParameters, SWEEP_GAS, encodeDeployAndSweep, encodeDeployAndSweepNative } from "./encodeDeployAndSweep.ts";
export { type SettlementTransfer, settledCredit, settlementTransfers } from "./settlementTransfers.ts";
export { type SplitPaymentCallParameters, splitPaymentCall } from "./splitPaymentCall.ts";
export { type SplitPaymentExecuted, isIssuedSplit, parseSplitPaymentLogs } from "./parseSplitPaymentLogs.ts";
