import type { Network } from "../../config/types.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
import { solanaConnection } from "./connection.ts";

/**
 * The chain's head on the scale the rail's indexed head uses (see `ingestHeads.ts`): its
 * finalized slot plus the required confirmations less one. The lag between the two is
 * then how far the subscriber's finalized watermark trails the node's.
 */
export async function chainHead(network: Network, timeoutMs: number): Promise<bigint> {
  const slot = await withTimeout(solanaConnection(network, "finalized", timeoutMs).getSlot("finalized"), timeoutMs, `${network.shortName} finalized slot`);
  return BigInt(slot) + BigInt(Math.max(1, network.requiredConfirmations)) - 1n;
}

/** The newest finalized slot. */
export async function finalizedHead(network: Network, timeoutMs: number): Promise<bigint> {
  return BigInt(await withTimeout(solanaConnection(network, "finalized", timeoutMs).getSlot("finalized"), timeoutMs, `${network.shortName} finalized slot`));
}
