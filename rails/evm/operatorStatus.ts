import type { Config, Network } from "../../config/index.ts";
import type { OperatorStatus } from "../types.ts";
import { evmClient } from "./client.ts";
import { SWEEP_GAS } from "./settlement/index.ts";

/**
 * The operator's native balance on a network with deposit addresses, and whether it covers a
 * sweep's gas at today's fee cap; null if unknown. Read by address: the API holds no operator key.
 */
export async function operatorStatus(config: Config, network: Network, timeoutMs: number): Promise<OperatorStatus | null> {
  const operator = config.operatorAddress ? { address: config.operatorAddress } : null;
  if (!operator || !network.forwarderFactory) return null;
  try {
    const client = evmClient(network, timeoutMs);
    // At the fee cap a sweep is signed with (what the node checks the balance against), not today's price.
    // (A chain without EIP-1559 fees: its gas price.)
    const [balance, perGas] = await Promise.all([
      client.getBalance({ address: operator.address }),
      client.estimateFeesPerGas().then((fees) => fees.maxFeePerGas, () => client.getGasPrice()),
    ]);
    return { address: operator.address, balance, sufficient: balance >= SWEEP_GAS * perGas };
  } catch {
    return null;
  }
}
