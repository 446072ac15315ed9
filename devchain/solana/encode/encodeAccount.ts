import { getBase58Decoder } from "@solana/kit";
import type { AccountState } from "../ledger/accountState.ts";
import { isTokenProgram } from "../ledger/programIds.ts";
import { RpcError } from "../rpc/RpcError.ts";
import { parseTokenAccountData } from "./parseTokenAccountData.ts";

/** "binary" is the legacy default: a bare base58 string. */
export type AccountEncoding = "binary" | "base58" | "base64" | "base64+zstd" | "jsonParsed";

export interface EncodeAccountOptions {
  encoding: AccountEncoding;
  dataSlice?: { offset: number; length: number };
  decimalsOf: (mint: string) => number | undefined;
}

// Real nodes report rent-exempt accounts with rentEpoch u64::MAX.
const rentExemptEpoch = 18446744073709551615;

/** An account as getAccountInfo returns it; lamports as a JSON number like a real node. */
export function encodeAccount(address: string, state: AccountState, options: EncodeAccountOptions): Record<string, unknown> {
  return {
    lamports: Number(state.lamports),
    owner: state.owner,
    data: encodeAccountData(address, state, options),
    executable: state.executable,
    rentEpoch: rentExemptEpoch,
    space: state.data.length,
  };
}

export function parseAccountEncoding(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback;
  if (value === "binary" || value === "base58" || value === "base64" || value === "base64+zstd" || value === "jsonParsed") return value;
  throw RpcError.invalidParams(`Invalid encoding: ${String(value)}`);
}

function encodeAccountData(address: string, state: AccountState, options: EncodeAccountOptions): unknown {
  if (options.encoding === "jsonParsed" && isTokenProgram(state.owner)) {
    const parsed = parseTokenAccountData(address, state, options.decimalsOf);
    if (parsed) return parsed;
  }
  const bytes = slice(state.data, options.dataSlice);
  if ((options.encoding === "base58" || options.encoding === "binary") && bytes.length > 128) {
    throw RpcError.invalidParams("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.");
  }
  switch (options.encoding) {
    case "binary":
      return getBase58Decoder().decode(bytes);
    case "base58":
      return [getBase58Decoder().decode(bytes), "base58"];
    case "base64+zstd":
      return [Buffer.from(Bun.zstdCompressSync(bytes)).toString("base64"), "base64+zstd"];
    default:
      return [Buffer.from(bytes).toString("base64"), "base64"];
  }
}

function slice(data: Uint8Array, dataSlice: { offset: number; length: number } | undefined): Uint8Array {
  if (!dataSlice) return data;
  return data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length);
}
