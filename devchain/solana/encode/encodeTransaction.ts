import { getBase58Decoder } from "@solana/kit";
import type { TransactionRecord } from "../ledger/transactionRecord.ts";
import { RpcError } from "../rpc/RpcError.ts";
import { encodeInstruction } from "./encodeInstruction.ts";
import { encodeTransactionMeta } from "./encodeTransactionMeta.ts";

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";

export interface EncodeTransactionOptions {
  encoding: TransactionEncoding;
  /** The client's maxSupportedTransactionVersion; undefined means legacy-only (no `version` field). */
  maxSupportedTransactionVersion: number | undefined;
}

/** `{transaction, meta, version?}` of getTransaction / getBlock, in the requested encoding. */
export function encodeTransaction(record: TransactionRecord, options: EncodeTransactionOptions): Record<string, unknown> {
  const { encoding, maxSupportedTransactionVersion } = options;
  if (record.version !== "legacy") {
    if (maxSupportedTransactionVersion === undefined) {
      throw new RpcError(
        -32015,
        `Transaction version (${record.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${record.version}`,
      );
    }
    if (record.version > maxSupportedTransactionVersion) {
      throw new RpcError(-32015, `Transaction version (${record.version}) is not supported by the requesting client.`);
    }
  }
  const encoded: Record<string, unknown> = {
    transaction: encodeTransactionBody(record, encoding),
    meta: encodeTransactionMeta(record, encoding === "jsonParsed" ? "jsonParsed" : "json"),
  };
  if (maxSupportedTransactionVersion !== undefined) encoded.version = record.version;
  return encoded;
}

function encodeTransactionBody(record: TransactionRecord, encoding: TransactionEncoding): unknown {
  if (encoding === "base64") return [Buffer.from(record.wire).toString("base64"), "base64"];
  if (encoding === "base58") return [getBase58Decoder().decode(record.wire), "base58"];
  const message = record.message;
  const staticCount = message.staticAccountKeys.length;
  const instructions = message.compiledInstructions.map((instruction) =>
    encodeInstruction(
      { programIdIndex: instruction.programIdIndex, accounts: instruction.accountKeyIndexes, data: instruction.data, stackHeight: null },
      record.accountKeys,
      encoding,
    ),
  );
  const addressTableLookups =
    message.version === 0
      ? message.addressTableLookups.map((lookup) => ({
          accountKey: lookup.accountKey.toBase58(),
          writableIndexes: lookup.writableIndexes,
          readonlyIndexes: lookup.readonlyIndexes,
        }))
      : undefined;
  if (encoding === "jsonParsed") {
    const accountKeys = record.accountKeys.map((pubkey, index) => ({
      pubkey,
      writable: message.isAccountWritable(index),
      signer: message.isAccountSigner(index),
      source: index < staticCount ? "transaction" : "lookupTable",
    }));
    return {
      signatures: record.signatures,
      message: { accountKeys, recentBlockhash: message.recentBlockhash, instructions, ...(addressTableLookups ? { addressTableLookups } : {}) },
    };
  }
  return {
    signatures: record.signatures,
    message: {
      header: message.header,
      accountKeys: record.accountKeys.slice(0, staticCount),
      recentBlockhash: message.recentBlockhash,
      instructions,
      ...(addressTableLookups ? { addressTableLookups } : {}),
    },
  };
}
