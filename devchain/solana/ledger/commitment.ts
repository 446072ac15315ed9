import { RpcError } from "../rpc/RpcError.ts";

/** The three commitment levels a real node serves. */
export type Commitment = "processed" | "confirmed" | "finalized";

const aliases: Record<string, Commitment> = {
  processed: "processed",
  confirmed: "confirmed",
  finalized: "finalized",
  // Deprecated names older clients still send.
  recent: "processed",
  single: "confirmed",
  singleGossip: "confirmed",
  root: "finalized",
  max: "finalized",
};

/** Reads a request's `commitment`; a real node defaults to finalized when none is given. */
export function parseCommitment(value: unknown, fallback: Commitment = "finalized"): Commitment {
  if (value === undefined || value === null) return fallback;
  const commitment = typeof value === "string" ? aliases[value] : undefined;
  if (!commitment) throw RpcError.invalidParams(`Invalid commitment: ${String(value)}`);
  return commitment;
}

/** Methods that read history (transactions, signatures, blocks) refuse `processed`, as real nodes do. */
export function parseCommitmentAtLeastConfirmed(value: unknown): Commitment {
  const commitment = parseCommitment(value);
  if (commitment === "processed") throw RpcError.invalidParams("Method does not support commitment below `confirmed`");
  return commitment;
}
