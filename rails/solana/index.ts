import type { NetworkRails } from "../registration.ts";
import { solanaChain } from "./chain.ts";
import { solanaEvidence } from "./evidence.ts";
import { solanaDepositAddress, solanaPay } from "./methods.ts";

export { solanaChain, solanaEvidence, solanaPay, solanaDepositAddress };

/** Solana: Solana Pay transfers and deposit addresses, evidence from the subscriber; Solana's libraries load on first use (`library.ts`). */
export const solanaRails: NetworkRails = {
  chain: solanaChain,
  evidence: solanaEvidence,
  methods: { payment: solanaPay, deposit: solanaDepositAddress },
};
