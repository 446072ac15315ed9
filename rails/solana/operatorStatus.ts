import { PublicKey } from "@solana/web3.js";
import type { Config, Network } from "../../config/index.ts";
import type { OperatorStatus } from "../types.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
import { solanaConnection } from "./connection.ts";
import { SWEEP_LAMPORTS } from "./operator.ts";

/** The operator's SOL (lamports) and whether it covers a sweep now; null without an operator or an answer. Read by address: the API holds no operator key. */
export async function operatorStatus(config: Config, network: Network, timeoutMs: number): Promise<OperatorStatus | null> {
  const address = config.solana.operatorAddress;
  if (!address) return null;
  try {
    const balance = BigInt(await withTimeout(solanaConnection(network, "confirmed", timeoutMs).getBalance(new PublicKey(address)), timeoutMs, "operator balance"));
    return { address, balance, sufficient: balance >= SWEEP_LAMPORTS };
  } catch {
    return null;
  }
}
