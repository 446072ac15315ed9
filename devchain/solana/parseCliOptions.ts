import { parseArgs } from "node:util";
import type { SolanaDevChainOptions } from "./startSolanaDevChain.ts";

export class CliOptionError extends Error {
  override name = "CliOptionError";
}

export const cliUsage = `Usage: bun solana/cli.ts [--port N] [--slot-ms N] [--finality-depth N] [--airdrop ADDRESS]...
  --port N            JSON-RPC on 127.0.0.1:N, PubSub also on N+1 (default: free ports)
  --slot-ms N         a new slot every N ms; 0: none (default 400)
  --finality-depth N  slots until finalized, at least 1 (default 32)
  --airdrop ADDRESS   10 SOL to ADDRESS once started (repeatable)`;

/** A non-negative whole number, or an error naming the flag. */
function wholeNumber(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) throw new CliOptionError(`--${flag} must be a whole number of at least ${min}, got "${text}"`);
  return Number(text);
}

/** The standalone server's flags, checked before anything starts. */
export function parseCliOptions(argv: string[]): SolanaDevChainOptions & { airdrop: string[] } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string" },
        "slot-ms": { type: "string" },
        "finality-depth": { type: "string" },
        airdrop: { type: "string", multiple: true },
      },
      strict: true,
    }));
  } catch (error) {
    throw new CliOptionError(error instanceof Error ? error.message : String(error));
  }
  const port = wholeNumber("port", values.port, 1);
  if (port !== undefined && port > 65534) throw new CliOptionError(`--port must leave room for PubSub on port + 1 (at most 65534), got "${values.port}"`);
  return {
    port,
    slotMs: wholeNumber("slot-ms", values["slot-ms"], 0),
    finalityDepth: wholeNumber("finality-depth", values["finality-depth"], 1),
    airdrop: values.airdrop ?? [],
  };
}
