/** The ports' types in one import for the rails' own files; each port is defined in `ports/`. */
export type * from "./ports/context.ts";
export type * from "./ports/chain.ts";
export type * from "./ports/evidence.ts";
export type * from "./ports/evidenceTypes.ts";
export type * from "./ports/paymentMethod.ts";
export type * from "./ports/recovery.ts";
export type * from "./ports/merchantSignedRefunds.ts";

/** The Postgres channel every ingest announces its commits on (reconciliation listens). */
export const INDEXED_CHANNEL = "stablepay_indexed";
