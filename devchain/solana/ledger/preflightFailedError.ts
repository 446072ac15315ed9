import type { Simulation } from "./simulation.ts";

/** Preflight simulation failed; sendTransaction answers with the simulation, nothing lands. */
export class PreflightFailedError extends Error {
  override readonly name = "PreflightFailedError";

  constructor(readonly simulation: Simulation) {
    super(`Transaction simulation failed: ${simulation.err?.message}`);
  }
}
