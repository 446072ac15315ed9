import type { Message, MessageV0 } from "@solana/web3.js";
import { programIds } from "./programIds.ts";

/** Lamports a validator charges per signature. */
export const lamportsPerSignature = 5000n;

const maxComputeUnitLimit = 1_400_000n;
const defaultInstructionComputeUnits = 200_000n;
const builtinInstructionComputeUnits = 3_000n;
const builtinPrograms = new Set([
  programIds.system,
  programIds.computeBudget,
  "Stake11111111111111111111111111111111111111",
  "Vote111111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
]);

/**
 * The fee in lamports a message costs: 5000 per signature plus the priority fee its
 * compute-budget instructions ask for (price in micro-lamports per compute unit).
 */
export function computeFee(message: Message | MessageV0): bigint {
  const keys = message.staticAccountKeys.map((key) => key.toBase58());
  let unitLimit: bigint | undefined;
  let microLamportsPerUnit = 0n;
  let defaultLimit = 0n;
  for (const instruction of message.compiledInstructions) {
    const programId = keys[instruction.programIdIndex];
    const data = Buffer.from(instruction.data);
    if (programId === programIds.computeBudget) {
      if (data[0] === 2 && data.length >= 5) unitLimit = BigInt(data.readUInt32LE(1));
      if (data[0] === 3 && data.length >= 9) microLamportsPerUnit = data.readBigUInt64LE(1);
    }
    // Without an explicit limit each instruction reserves units, compute-budget ones included.
    defaultLimit += programId !== undefined && builtinPrograms.has(programId) ? builtinInstructionComputeUnits : defaultInstructionComputeUnits;
  }
  const limit = minBigint(unitLimit ?? defaultLimit, maxComputeUnitLimit);
  const priorityFee = (microLamportsPerUnit * limit + 999_999n) / 1_000_000n;
  return lamportsPerSignature * BigInt(message.header.numRequiredSignatures) + priorityFee;
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
