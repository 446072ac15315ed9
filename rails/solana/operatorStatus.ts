import type { Config, Network } from "../../config/index.ts";
import type { OperatorStatus } from "../types.ts";
import { withTimeout } from "../withTimeout.ts";
import { solanaConnection } from "./connection.ts";
import { solanaOperator, SWEEP_LAMPORTS } from "./operator.ts";

/** The operator's SOL (lamports) and whether it covers a sweep now; null without an operator or an answer. */
export async function operatorStatus(config: Config, network: Network, timeoutMs: number): Promise<OperatorStatus | null> {
  const operator = solanaOperator(config);
  if (!operator) return null;
  try {
    const balance = BigInt(await withTimeout(solanaConnection(network, "confirmed", timeoutMs).getBalance(operator.publicKey), timeoutMs, "operator balance"));
    return { address: operator.publicKey.toBase58(), balance, sufficient: balance >= SWEEP_LAMPORTS };
  } catch {
    return null;
  }
}
