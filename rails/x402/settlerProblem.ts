import { getAddress, isAddressEqual, type Hex } from "viem";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import type { Config, Network } from "../../config/index.ts";
import { evmClient } from "../evm/client.ts";

/** How long a network's answer is kept: the settler changes by a transaction of the contract's owner, rarely. */
const KEEP_MS = 60_000;
const known = new Map<string, { at: number; problem: Promise<string | null> }>();

/**
 * Why the operator cannot settle x402 payments on `network`, or null: the settlement contract
 * lets only its settler call `settleAuthorization`, so an operator that is not it (the contract
 * deployed or handed over to another address) would have every settle refused after its verify
 * passed — the resource server having done the work for nothing. Null too when the node cannot
 * be read now or the operator's address is not configured here (the settle's own simulation
 * refuses then). Kept 60 s per network.
 */
export function settlerProblem(config: Config, network: Network): Promise<string | null> {
  const key = `${network.chainId}:${network.settlementContract}:${config.operatorAddress}`;
  const kept = known.get(key);
  if (kept && Date.now() - kept.at < KEEP_MS) return kept.problem;
  const problem = readProblem(config, network);
  known.set(key, { at: Date.now(), problem });
  return problem;
}

async function readProblem(config: Config, network: Network): Promise<string | null> {
  if (!network.settlementContract) return `no settlement contract on ${network.shortName}`;
  // An API given no OPERATOR_ADDRESS cannot tell; the worker, which holds the key, checks at its start.
  if (!config.operatorAddress) return null;
  const settler = await evmClient(network, config.rpcTimeoutMs)
    .readContract({ address: getAddress(network.settlementContract), abi: paymentSettlementAbi, functionName: "settler" })
    .catch(() => null);
  if (settler === null) return null;
  return isAddressEqual(settler as Hex, getAddress(config.operatorAddress))
    ? null
    : `the settlement contract ${network.settlementContract} on ${network.shortName} names ${settler} as its settler, not the operator ${config.operatorAddress}: only its settler may settle x402 payments (docs/x402.md)`;
}

/** Drops the kept answers (after the settler was changed on purpose: an operator's fix, a test). */
export const forgetSettlerAnswers = (): void => known.clear();
