import { parseCommitment, parseCommitmentAtLeastConfirmed } from "../ledger/commitment.ts";
import type { TransactionRecord } from "../ledger/transactionRecord.ts";
import { encodeTransaction, type TransactionEncoding } from "../encode/encodeTransaction.ts";
import { addressParam, configParam, stringParam, withContext } from "./params.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";

// Without searchTransactionHistory a real node only answers from its status cache (~300 slots).
const statusCacheSlots = 300;

/** Transaction history: what litesvm does not keep, served from the ledger's own index. */
export const transactionMethods: RpcMethods = {
  getTransaction(params, ledger) {
    const signature = stringParam(params, 0, "signature");
    const config = configParam(params, 1);
    const slot = ledger.clock.slotAt(parseCommitmentAtLeastConfirmed(config.commitment));
    const record = ledger.transactions.get(signature);
    if (!record || record.slot > slot) return null;
    return {
      slot: record.slot,
      blockTime: record.blockTime,
      ...encodeTransaction(record, {
        encoding: parseTransactionEncoding(config.encoding),
        maxSupportedTransactionVersion: parseMaxVersion(config.maxSupportedTransactionVersion),
      }),
    };
  },

  getSignaturesForAddress(params, ledger) {
    const account = addressParam(params[0]);
    const config = configParam(params, 1);
    const slot = ledger.clock.slotAt(parseCommitmentAtLeastConfirmed(config.commitment));
    if (typeof config.minContextSlot === "number" && config.minContextSlot > slot) throw RpcError.minContextSlotNotReached(slot);
    const limit = config.limit === undefined ? 1000 : Number(config.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw RpcError.invalidParams("Invalid limit; max 1000");
    const records = ledger.transactions.forAccount(account, {
      maxSlot: slot,
      limit,
      before: typeof config.before === "string" ? config.before : undefined,
      until: typeof config.until === "string" ? config.until : undefined,
    });
    return records.map((record) => ({
      signature: record.signature,
      slot: record.slot,
      err: record.err?.json ?? null,
      memo: record.memo,
      blockTime: record.blockTime,
      confirmationStatus: ledger.clock.commitmentOf(record.slot),
    }));
  },

  getSignatureStatuses(params, ledger) {
    if (!Array.isArray(params[0])) throw RpcError.invalidParams("Invalid params: expected an array of signatures");
    if (params[0].length > 256) throw RpcError.invalidParams("Too many inputs provided; max 256");
    const config = configParam(params, 1);
    const tip = ledger.clock.tip;
    const statuses = params[0].map((signature) => {
      const record = typeof signature === "string" ? ledger.transactions.get(signature) : undefined;
      if (!record) return null;
      if (!config.searchTransactionHistory && record.slot < tip - statusCacheSlots) return null;
      return statusOf(record, ledger.clock.commitmentOf(record.slot), tip);
    });
    return withContext(tip, statuses);
  },

  getTransactionCount(params, ledger) {
    const slot = ledger.clock.slotAt(parseCommitment(configParam(params, 0).commitment));
    return ledger.transactions.countUpTo(slot);
  },
};

function statusOf(record: TransactionRecord, confirmationStatus: string, tip: number) {
  return {
    slot: record.slot,
    confirmations: confirmationStatus === "finalized" ? null : tip - record.slot,
    err: record.err?.json ?? null,
    status: record.err ? { Err: record.err.json } : { Ok: null },
    confirmationStatus,
  };
}

export function parseTransactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return "json";
  if (value === "json" || value === "jsonParsed" || value === "base64" || value === "base58") return value;
  if (value === "binary") return "base58";
  throw RpcError.invalidParams(`Invalid encoding: ${String(value)}`);
}

export function parseMaxVersion(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (value !== 0) throw RpcError.invalidParams(`Invalid maxSupportedTransactionVersion: ${String(value)}`);
  return value;
}
