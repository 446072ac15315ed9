import { sql } from "drizzle-orm";
import { erc20Abi, getAbiItem, type Address, type Hash, type PublicClient } from "viem";
import type { Network } from "../../../config/index.ts";
import { paymentSettlementAbi } from "../../../contracts/artifacts/index.ts";
import { queryRows } from "../../../db/client.ts";
import { insertReplayed, paymentsPaidBy, receiveAddressesOn, type ReplayedSettlement, type ReplayedSplit, type ReplayedTransfer } from "../../../db/replayedEvidence.ts";
import type { RailContext, ReplayOptions, ReplayResult } from "../../types.ts";
import { finalizedHead } from "../chainHead.ts";
import { secondsPerBlock } from "../secondsPerBlock.ts";
import { evmClient } from "../client.ts";
import { evidenceQuery } from "../readModel/evidence.ts";
import { settlementTransfers } from "../settlement/settlementTransfers.ts";
import { knownEvidenceIds } from "../readModel/knownEvidence.ts";
import { indexedTables } from "../readModel/tables.ts";

/** Recipients per `eth_getLogs` topic filter, as the indexer asks. */
const ADDRESSES_PER_REQUEST = 500;
const transferEvent = getAbiItem({ abi: erc20Abi, name: "Transfer" });
const settledEvent = getAbiItem({ abi: paymentSettlementAbi, name: "PaymentSettled" });
const splitEvent = getAbiItem({ abi: paymentSettlementAbi, name: "SplitPaymentExecuted" });
/** A split payment can pay a payment only when it names its id as the service writes it (the indexer keeps only those too). */
const ISSUED_PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The EVM replay: blocks `from`..`to` (clamped to the final block) read again with
 * `eth_getLogs` in chunks of `REPLAY_BLOCK_RANGE` blocks — the transfers of the chain's
 * stablecoins into any payment's receive address, and the settlement contract's
 * `PaymentSettled` events with what their token Transfers moved (the transaction's
 * receipt), and `SplitPaymentExecuted` events — and every row the service does not hold yet recorded as
 * replayed evidence. Idempotent: row ids are the indexer's (`chain:tx:log`).
 */
export async function replayRange(ctx: RailContext, network: Network, range: { from: bigint; to: bigint }, options: ReplayOptions): Promise<ReplayResult> {
  const { db, config } = ctx;
  const client = evmClient(network, config.rpcTimeoutMs * 5);
  const final = await finalizedHead(network, config.rpcTimeoutMs * 5);
  const from = range.from;
  const to = range.to < final ? range.to : final;
  // Part of the range is not final: how fast the chain makes blocks tells the caller when it will be.
  const pace = to < range.to ? { secondsPerBlock: await secondsPerBlock(network, final, config.rpcTimeoutMs * 5).catch(() => null) } : {};
  if (to < from) return { from, to, found: 0, added: 0, known: 0, paymentIds: [], finalHead: final, ...pace };

  const chainId = Number(network.chainId);
  const tokens = network.tokens.map((t) => t.address as Address);
  const addresses = await receiveAddressesOn(db, network.chainId);
  const step = BigInt(config.indexer.replayBlockRange);
  const total = to - from + 1n;
  const transfers: ReplayedTransfer[] = [];
  const settlements: ReplayedSettlement[] = [];
  const splits: ReplayedSplit[] = [];
  const times = blockTimes(client);
  const receipts = transactionReceipts(client);
  // Where a log sits: its row's id and position, as the indexer writes them.
  const where = async (log: { transactionHash: Hash; logIndex: number; blockNumber: bigint; blockHash: Hash }) => ({
    id: `${chainId}:${log.transactionHash}:${log.logIndex}`,
    chainId,
    blockNumber: log.blockNumber.toString(),
    blockHash: log.blockHash.toLowerCase(),
    txHash: log.transactionHash.toLowerCase(),
    logIndex: log.logIndex,
    timestamp: (await times(log.blockHash)).toString(),
  });
  for (let start = from; start <= to; start += step) {
    const end = start + step - 1n < to ? start + step - 1n : to;
    for (let i = 0; i < addresses.length; i += ADDRESSES_PER_REQUEST) {
      const logs = await client.getLogs({ address: tokens, event: transferEvent, args: { to: addresses.slice(i, i + ADDRESSES_PER_REQUEST) }, fromBlock: start, toBlock: end, strict: true });
      for (const log of logs) {
        transfers.push({
          token: log.address.toLowerCase(),
          from: log.args.from.toLowerCase(),
          to: log.args.to.toLowerCase(),
          amount: log.args.value.toString(),
          ...(await where(log)),
        });
      }
    }
    if (network.settlementContract) {
      const logs = await client.getLogs({ address: network.settlementContract as Address, event: settledEvent, fromBlock: start, toBlock: end, strict: true });
      for (const log of logs) {
        const receipt = await receipts(log.transactionHash);
        settlements.push({
          paymentId: log.args.paymentId.toLowerCase(),
          payer: log.args.payer.toLowerCase(),
          token: log.args.token.toLowerCase(),
          merchant: log.args.merchant.toLowerCase(),
          amount: log.args.amount.toString(),
          fee: log.args.fee.toString(),
          transfers: settlementTransfers(receipt.logs, { logIndex: log.logIndex, contract: log.address, token: log.args.token, payer: log.args.payer }),
          contract: log.address.toLowerCase(),
          ...(await where(log)),
        });
      }
    }
    if (network.settlementContract) {
      const logs = await client.getLogs({ address: network.settlementContract as Address, event: splitEvent, fromBlock: start, toBlock: end, strict: true });
      for (const log of logs) {
        const p = log.args.params;
        if (!ISSUED_PAYMENT_ID.test(p.paymentId)) continue;
        splits.push({
          key: log.args.key.toLowerCase(),
          paymentId: p.paymentId,
          payer: log.args.payer.toLowerCase(),
          token: p.token.toLowerCase(),
          amount: p.amount.toString(),
          received: log.args.received.toString(),
          recipient1: p.recipient1.toLowerCase(),
          recipient2: p.recipient2.toLowerCase(),
          recipient3: p.recipient3.toLowerCase(),
          recipient1Percentage: Number(p.recipient1Percentage),
          recipient2Percentage: Number(p.recipient2Percentage),
          recipient3Percentage: Number(p.recipient3Percentage),
          contract: log.address.toLowerCase(),
          ...(await where(log)),
        });
      }
    }
    options.onProgress?.(end - from + 1n, total);
  }

  const schema = config.indexer.viewsSchema;
  const tables = await indexedTables(db, schema);
  const found = [...transfers, ...settlements, ...splits];
  const known = await knownEvidenceIds(db, schema, tables, found.map((r) => r.id));
  const fresh = { transfers: transfers.filter((r) => !known.has(r.id)), settlements: settlements.filter((r) => !known.has(r.id)), splits: splits.filter((r) => !known.has(r.id)) };
  const freshCount = fresh.transfers.length + fresh.settlements.length + fresh.splits.length;
  const added = options.dryRun ? freshCount : (await insertReplayed(db, fresh)).size;
  // The payments this range holds evidence of (recorded now, or already; on a dry run, what would be).
  const paymentIds = options.dryRun
    ? await paymentsPaidBy(db, network.chainId, { addresses: transfers.map((t) => t.to), intents: settlements.map((e) => e.paymentId), splitPaymentIds: splits.map((x) => x.paymentId) })
    : (
        await queryRows<{ payment_id: string }>(
          db,
          sql`select distinct payment_id from (${evidenceQuery(schema, tables, { chainId: network.chainId, aboveBlock: from - 1n })}) e
              where e.block_number::numeric <= ${to.toString()}::numeric`,
        )
      ).map((r) => r.payment_id);
  return { from, to, found: found.length, added, known: found.length - freshCount, paymentIds, finalHead: final, ...pace };
}

/** Block timestamps (seconds), fetched once per block. */
function blockTimes(client: PublicClient) {
  const cache = new Map<Hash, Promise<bigint>>();
  return (blockHash: Hash) => {
    let time = cache.get(blockHash);
    if (!time) cache.set(blockHash, (time = client.getBlock({ blockHash }).then((b) => b.timestamp)));
    return time;
  };
}

/** Transaction receipts, fetched once per transaction (several intents may settle in one). */
function transactionReceipts(client: PublicClient) {
  const cache = new Map<Hash, ReturnType<PublicClient["getTransactionReceipt"]>>();
  return (hash: Hash) => {
    let receipt = cache.get(hash);
    if (!receipt) cache.set(hash, (receipt = client.getTransactionReceipt({ hash })));
    return receipt;
  };
}
