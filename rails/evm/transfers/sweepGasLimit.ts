import type { Address, Hex, PublicClient } from "viem";
import { SWEEP_GAS } from "../settlement/index.ts";

/**
 * The gas limit a sweep or refund is signed with: the node's estimate plus 30%, never below
 * `SWEEP_GAS`. A fixed limit left a first sweep (which also deploys the forwarder, ~236k then,
 * ~255k since it moves native coin too) a few percent of headroom with a real token, and none on a chain that charges its L1 data
 * inside the gas limit (Arbitrum): the transfer reverted out of gas, or the node refused it
 * ("intrinsic gas too low") and its nonce held back every later transfer on the chain. A
 * replacement keeps the limit it replaces. When the node cannot estimate (it would revert:
 * the revert path records that), the fixed limit is used.
 */
export async function sweepGasLimit(client: PublicClient, call: { account: Address; to: Address; data: Hex }): Promise<bigint> {
  const estimate = await client.estimateGas(call).catch(() => null);
  if (estimate === null) return SWEEP_GAS;
  const padded = (estimate * 13n + 9n) / 10n;
  return padded > SWEEP_GAS ? padded : SWEEP_GAS;
}
