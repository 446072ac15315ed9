import type { Simulation } from "../ledger/simulation.ts";
import { encodeInstruction } from "./encodeInstruction.ts";

/**
 * The simulateTransaction result (also the `data` of a failed preflight). Inner
 * instructions are parsed as a real node shows them; `accounts` is filled by the caller.
 */
export function encodeSimulation(simulation: Simulation, options: { innerInstructions: boolean; accounts: unknown[] | null }): Record<string, unknown> {
  const { meta, decoded } = simulation;
  return {
    err: simulation.err?.json ?? null,
    logs: meta.logMessages,
    accounts: options.accounts,
    unitsConsumed: Number(meta.computeUnitsConsumed),
    returnData: meta.returnData
      ? { programId: meta.returnData.programId, data: [Buffer.from(meta.returnData.data).toString("base64"), "base64"] }
      : null,
    innerInstructions: options.innerInstructions
      ? meta.innerInstructions.map((inner) => ({
          index: inner.index,
          instructions: inner.instructions.map((instruction) => encodeInstruction(instruction, decoded.accountKeys, "jsonParsed")),
        }))
      : null,
    fee: Number(simulation.fee),
  };
}
