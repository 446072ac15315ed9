/** An instruction a real node could parse (jsonParsed encoding). */
export interface ParsedInstruction {
  program: string;
  programId: string;
  parsed: unknown;
  stackHeight: number | null;
}

/** An instruction of a program real nodes do not parse: keys resolved, data in base58. */
export interface PartiallyDecodedInstruction {
  programId: string;
  accounts: string[];
  data: string;
  stackHeight: number | null;
}

/** What a program-specific parser returns: `{type, info}` (or a bare string for memos). */
export type ParsedInstructionBody = { type: string; info?: Record<string, unknown> } | string;
