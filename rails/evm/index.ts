import type { NetworkRails } from "../registration.ts";
import { evmChain } from "./chain.ts";
import { evmEvidence } from "./evidence.ts";
import { evmContractPayment, evmDepositAddress } from "./methods.ts";

export { evmChain, evmEvidence, evmContractPayment, evmDepositAddress };

/**
 * EVM chains: contract payments through PaymentSettlement, deposit addresses as CREATE2
 * forwarders swept by the operator, evidence indexed by Ponder (`indexer/`) and read through `readModel/`.
 */
export const evmRails: NetworkRails = {
  chain: evmChain,
  evidence: evmEvidence,
  methods: { payment: evmContractPayment, deposit: evmDepositAddress },
};
