import type { EvidenceSource } from "../types.ts";
import { bridgeInTransit, loadBridgeCredits } from "./loadBridgeCredits.ts";

/**
 * A cross-chain payment's credits are the bridge's destination fills only, verified from their
 * receipts, so `settle` counts confirmations on the merchant's chain and the origin leg never
 * counts. The bridge ingests no chain of its own: the `bridge` job reads each request
 * (`bridge_requests`) and prompts its reconcile whenever a leg moves.
 */
export const bridgeEvidence: EvidenceSource = {
  name: "bridge",
  loadCredits: (ctx, payments) => loadBridgeCredits(ctx, payments),
  inTransit: bridgeInTransit,
};
