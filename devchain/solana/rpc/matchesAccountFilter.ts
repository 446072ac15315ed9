import { getBase58Encoder } from "@solana/kit";
import type { AccountState } from "../ledger/accountState.ts";
import { RpcError } from "./RpcError.ts";

/** getProgramAccounts / programSubscribe filters: `dataSize` and `memcmp` (base58 or base64 bytes). */
export function matchesAccountFilter(state: AccountState, filter: unknown): boolean {
  const { dataSize, memcmp } = (filter ?? {}) as { dataSize?: number; memcmp?: { offset: number; bytes: string; encoding?: string } };
  if (dataSize !== undefined) return state.data.length === dataSize;
  if (memcmp) {
    const bytes = memcmp.encoding === "base64" ? Buffer.from(memcmp.bytes, "base64") : Buffer.from(getBase58Encoder().encode(memcmp.bytes));
    const window = state.data.subarray(memcmp.offset, memcmp.offset + bytes.length);
    return Buffer.from(window).equals(bytes);
  }
  throw RpcError.invalidParams("Invalid params: unsupported filter");
}
