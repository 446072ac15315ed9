import type { ChainPort, ChainIngest, CreatableMethod, EvidenceSource, PaymentMethod } from "./types.ts";

/**
 * What one network type brings to the registry (`rails/registry.ts`): its chain, the ingest
 * that follows its chains, and the payment methods it takes, by kind. The types say what a
 * network type's folder exports; the registry maps each type to one of these.
 */
export type NetworkRails = {
  chain: ChainPort;
  evidence: ChainIngest;
  methods: { payment?: CreatableMethod; deposit?: CreatableMethod };
};

/**
 * A payment method chosen by the kind of payment whatever its network's type (cross-chain
 * payments arrive through a bridge), with the source of its evidence. The payment's chain
 * operations stay those of its network's chain.
 */
export type KindRails = { method: PaymentMethod; evidence: EvidenceSource };
