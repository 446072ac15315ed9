/**
 * What the operator pays for on Solana, at most: the transfer's compute budget as x402's own
 * client sets it (20,000 units), at up to 0.1 lamport a unit (2,000 lamports of priority fee
 * a settlement) — a payer cannot make the operator's fee payer bid high for its transaction.
 */
export const SVM_LIMITS = { maxComputeUnits: 20_000, maxPriorityFeeMicroLamports: 100_000, maxRequiredSignatures: 2 };
