import { parseCommitmentAtLeastConfirmed } from "../ledger/commitment.ts";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { encodeTokenBalance } from "../encode/encodeTokenBalance.ts";
import { encodeTransaction } from "../encode/encodeTransaction.ts";
import { type Config, configParam, numberParam, querySlot, stringParam, withContext } from "./params.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";
import { parseMaxVersion, parseTransactionEncoding } from "./transactionMethods.ts";

const slotsPerEpoch = 432_000;

/** Slots, blocks, blockhashes and epochs. Every slot has a block; block height equals slot. */
export const blockMethods: RpcMethods = {
  getSlot(params, ledger) {
    return querySlot(ledger, configParam(params, 0));
  },

  getBlockHeight(params, ledger) {
    return ledger.clock.block(querySlot(ledger, configParam(params, 0)))!.blockHeight;
  },

  getLatestBlockhash(params, ledger) {
    const slot = querySlot(ledger, configParam(params, 0));
    const block = ledger.clock.block(slot)!;
    return withContext(slot, { blockhash: block.blockhash, lastValidBlockHeight: ledger.clock.lastValidBlockHeight(block.slot) });
  },

  isBlockhashValid(params, ledger) {
    const blockhash = stringParam(params, 0, "blockhash");
    const slot = querySlot(ledger, configParam(params, 1));
    return withContext(slot, ledger.clock.isBlockhashValid(blockhash));
  },

  getBlock(params, ledger) {
    const slot = numberParam(params[0], "slot");
    const config = configParam(params, 1);
    if (slot > committedSlot(ledger, config)) throw RpcError.blockNotAvailable(slot);
    return encodeBlock(ledger, slot, config);
  },

  getBlockTime(params, ledger) {
    const slot = numberParam(params[0], "slot");
    const block = ledger.clock.block(slot);
    if (!block) throw RpcError.blockNotAvailable(slot);
    return block.blockTime;
  },

  getBlocks(params, ledger) {
    const start = numberParam(params[0], "start slot");
    const hasEnd = typeof params[1] === "number";
    const last = Math.min(hasEnd ? numberParam(params[1], "end slot") : Infinity, committedSlot(ledger, configParam(params, hasEnd ? 2 : 1)));
    return slotRange(start, last);
  },

  getBlocksWithLimit(params, ledger) {
    const start = numberParam(params[0], "start slot");
    const limit = numberParam(params[1], "limit");
    return slotRange(start, Math.min(start + limit - 1, committedSlot(ledger, configParam(params, 2))));
  },

  getFirstAvailableBlock() {
    return 0;
  },

  getEpochInfo(params, ledger) {
    const slot = querySlot(ledger, configParam(params, 0));
    return {
      absoluteSlot: slot,
      blockHeight: ledger.clock.block(slot)!.blockHeight,
      epoch: Math.floor(slot / slotsPerEpoch),
      slotIndex: slot % slotsPerEpoch,
      slotsInEpoch: slotsPerEpoch,
      transactionCount: ledger.transactions.countUpTo(slot),
    };
  },

  getEpochSchedule() {
    return { slotsPerEpoch, leaderScheduleSlotOffset: slotsPerEpoch, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 };
  },

  getRecentPrioritizationFees() {
    return [];
  },

  getMaxRetransmitSlot(_params, ledger) {
    return ledger.clock.tip;
  },

  getMaxShredInsertSlot(_params, ledger) {
    return ledger.clock.tip;
  },

  getSlotLeader(_params, ledger) {
    return ledger.faucet.publicKey.toBase58();
  },
};

function committedSlot(ledger: DevLedger, config: Config): number {
  return ledger.clock.slotAt(parseCommitmentAtLeastConfirmed(config.commitment));
}

function slotRange(first: number, last: number): number[] {
  if (last - first > 500_000) throw RpcError.invalidParams("Slot range too large; max 500000");
  const slots: number[] = [];
  for (let slot = first; slot <= last; slot++) slots.push(slot);
  return slots;
}

function encodeBlock(ledger: DevLedger, slot: number, config: Config) {
  const block = ledger.clock.block(slot)!;
  const details = config.transactionDetails ?? "full";
  const records = block.signatures.map((signature) => ledger.transactions.get(signature)!);
  const encoded: Record<string, unknown> = {
    blockHeight: block.blockHeight,
    blockTime: block.blockTime,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
    previousBlockhash: block.previousBlockhash,
  };
  if (details === "full") {
    const options = { encoding: parseTransactionEncoding(config.encoding), maxSupportedTransactionVersion: parseMaxVersion(config.maxSupportedTransactionVersion) };
    encoded.transactions = records.map((record) => encodeTransaction(record, options));
  } else if (details === "signatures") {
    encoded.signatures = block.signatures;
  } else if (details === "accounts") {
    encoded.transactions = records.map((record) => ({
      transaction: {
        signatures: record.signatures,
        accountKeys: record.accountKeys.map((pubkey, index) => ({
          pubkey,
          writable: record.message.isAccountWritable(index),
          signer: record.message.isAccountSigner(index),
          source: index < record.message.staticAccountKeys.length ? "transaction" : "lookupTable",
        })),
      },
      meta: {
        err: record.err?.json ?? null,
        status: record.err ? { Err: record.err.json } : { Ok: null },
        fee: Number(record.fee),
        preBalances: record.preBalances.map(Number),
        postBalances: record.postBalances.map(Number),
        preTokenBalances: record.preTokenBalances.map(encodeTokenBalance),
        postTokenBalances: record.postTokenBalances.map(encodeTokenBalance),
      },
      ...(config.maxSupportedTransactionVersion !== undefined ? { version: record.version } : {}),
    }));
  } else if (details !== "none") {
    throw RpcError.invalidParams(`Invalid transactionDetails: ${String(details)}`);
  }
  if (config.rewards !== false) encoded.rewards = [];
  return encoded;
}
