import { PublicKey } from "@solana/web3.js";
import { type Commitment, parseCommitment } from "../ledger/commitment.ts";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { RpcError } from "./RpcError.ts";
import { devchainSolanaVersion } from "./rpcMethod.ts";

// Small readers for positional JSON-RPC params, with a real node's error texts.

export type Config = Record<string, unknown>;

export function configParam(params: unknown[], index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value === "string") return { commitment: value }; // old clients pass a bare commitment
  if (typeof value !== "object" || Array.isArray(value)) throw RpcError.invalidParams(`Invalid params: expected a config object at ${index}`);
  return value as Config;
}

export function stringParam(params: unknown[], index: number, name: string): string {
  const value = params[index];
  if (typeof value !== "string") throw RpcError.invalidParams(`Invalid params: ${name} must be a string`);
  return value;
}

/** A base58 public key parameter. */
export function addressParam(value: unknown): string {
  if (typeof value !== "string") throw RpcError.invalidParams("Invalid param: expected a base58 public key");
  try {
    return new PublicKey(value).toBase58();
  } catch {
    throw RpcError.invalidParams("Invalid param: Invalid");
  }
}

export function numberParam(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw RpcError.invalidParams(`Invalid params: ${name} must be a non-negative integer`);
  return value;
}

/** The slot a query reads at, after checking the client's minContextSlot. */
export function querySlot(ledger: DevLedger, config: Config, fallback: Commitment = "finalized"): number {
  const slot = ledger.clock.slotAt(parseCommitment(config.commitment, fallback));
  if (typeof config.minContextSlot === "number" && config.minContextSlot > slot) throw RpcError.minContextSlotNotReached(slot);
  return slot;
}

/** `{context, value}`, the envelope of every RpcResponse method. */
export function withContext(slot: number, value: unknown): { context: { slot: number; apiVersion: string }; value: unknown } {
  return { context: { slot, apiVersion: devchainSolanaVersion }, value };
}
