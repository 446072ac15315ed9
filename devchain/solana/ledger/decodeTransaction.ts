import { AddressLookupTableAccount, AddressLookupTableProgram, type Message, type MessageV0, VersionedTransaction } from "@solana/web3.js";
import { getBase58Decoder } from "@solana/kit";
import { RpcError } from "../rpc/RpcError.ts";
import type { AccountState } from "./accountState.ts";
import { transactionError } from "./transactionError.ts";

/** A wire transaction with its account keys resolved (lookup tables included). */
export interface DecodedTransaction {
  wire: Uint8Array;
  transaction: VersionedTransaction;
  message: Message | MessageV0;
  /** The bytes the signatures sign. */
  messageBytes: Uint8Array;
  version: "legacy" | 0;
  signature: string;
  signatures: string[];
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
}

const lookupTableProgram = AddressLookupTableProgram.programId.toBase58();
const base58 = getBase58Decoder();

/**
 * Decodes and sanitizes a transaction as a real node's sendTransaction does before
 * anything else: malformed bytes and unreadable lookup tables are invalid-params errors.
 */
export function decodeTransaction(wire: Uint8Array, readAccount: (address: string) => AccountState | null): DecodedTransaction {
  let transaction: VersionedTransaction;
  try {
    transaction = VersionedTransaction.deserialize(wire);
  } catch (cause) {
    throw RpcError.invalidParams(
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(cause as Error).message}`,
    );
  }
  const message = transaction.message;
  if (message.version !== "legacy" && message.version !== 0) {
    throw RpcError.invalidParams(`invalid transaction: Transaction version is unsupported`);
  }
  if (transaction.signatures.length !== message.header.numRequiredSignatures || transaction.signatures.length === 0) {
    throw RpcError.invalidParams("invalid transaction: Transaction failed to sanitize accounts offsets correctly");
  }
  const staticKeys = message.staticAccountKeys.map((key) => key.toBase58());
  const loadedAddresses = message.version === 0 ? loadAddresses(message, readAccount) : { writable: [], readonly: [] };
  const signatures = transaction.signatures.map((signature) => base58.decode(signature));
  return {
    wire,
    transaction,
    message,
    messageBytes: wire.subarray(signaturesSectionLength(wire)),
    version: message.version,
    signature: signatures[0]!,
    signatures,
    accountKeys: [...staticKeys, ...loadedAddresses.writable, ...loadedAddresses.readonly],
    loadedAddresses,
  };
}

function loadAddresses(message: MessageV0, readAccount: (address: string) => AccountState | null) {
  const writable: string[] = [];
  const readonly: string[] = [];
  for (const lookup of message.addressTableLookups) {
    const table = readAccount(lookup.accountKey.toBase58());
    if (!table) throw invalidTransaction("AddressLookupTableNotFound");
    if (table.owner !== lookupTableProgram) throw invalidTransaction("InvalidAddressLookupTableOwner");
    let addresses: string[];
    try {
      addresses = AddressLookupTableAccount.deserialize(table.data).addresses.map((key) => key.toBase58());
    } catch {
      throw invalidTransaction("InvalidAddressLookupTableData");
    }
    const pick = (index: number): string => {
      const found = addresses[index];
      if (found === undefined) throw invalidTransaction("InvalidAddressLookupTableIndex");
      return found;
    };
    writable.push(...lookup.writableIndexes.map(pick));
    readonly.push(...lookup.readonlyIndexes.map(pick));
  }
  return { writable, readonly };
}

function invalidTransaction(error: string): RpcError {
  return RpcError.invalidParams(`invalid transaction: ${transactionError(error).message}`);
}

/** Length of the compact-u16 signature count plus the signatures themselves. */
function signaturesSectionLength(wire: Uint8Array): number {
  let count = 0;
  let offset = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = wire[offset++]!;
    count |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
  }
  return offset + count * 64;
}
