import { getAddress, parseAbiItem, type PublicClient } from "viem";
import type { Db } from "../../../../db/client.ts";
import { BLOCK_ARRIVAL_MARGIN_MS } from "../../../blockArrival.ts";
import { blockTime } from "../../../evm/blockTime.ts";
import { forgetVanishedDeposits, recordDeposit, updateRequest, type LocalBridgeRequestRow } from "../books.ts";

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** Blocks per `eth_getLogs` call. */
const MAX_RANGE = 5_000n;

/**
 * Records every transfer of the request's origin token into its deposit address, from the
 * block after the last one scanned up to `head`, with each block's timestamp (the expiry
 * is judged by it), and how far that is complete in time: the last scanned block's time, or
 * at the head (read at `headReadAt`) that moment less the blocks' arrival margin, when
 * later (a quiet chain's newest block may be old). Safe to repeat: a deposit's log is its
 * key. Returns how many deposits were new. (The relayer acts on a deposit only once it has
 * its confirmations.)
 *
 * The last `unconfirmed` blocks scanned before are scanned again: a reorg may have replaced
 * them. A deposit recorded there and not judged yet whose log is gone is forgotten (it never
 * happened: judged, it would be filled from the relayer's money), and one re-mined into them
 * is found.
 */
export async function scanDeposits(db: Db, client: PublicClient, request: LocalBridgeRequestRow, head: bigint, headReadAt: Date, unconfirmed = 0): Promise<number> {
  const to = head;
  const again = request.scannedBlock + 1n - BigInt(unconfirmed);
  let from = again > 0n ? again : 0n;
  let found = 0;
  while (from <= to) {
    const end = from + MAX_RANGE - 1n < to ? from + MAX_RANGE - 1n : to;
    const logs = await client.getLogs({
      address: getAddress(request.originToken),
      event: transferEvent,
      args: { to: getAddress(request.depositAddress) },
      fromBlock: from,
      toBlock: end,
      strict: true,
    });
    // Up to what was scanned before, too, when the chain is now shorter than that.
    if (from <= request.scannedBlock) await forgetVanishedDeposits(db, request.id, from, end === to && request.scannedBlock > to ? request.scannedBlock : end, logs);
    const times = new Map<bigint, Date>();
    for (const log of logs) {
      if (!times.has(log.blockNumber)) times.set(log.blockNumber, await blockTime(client, log.blockNumber));
      const isNew = await recordDeposit(db, {
        requestId: request.id,
        chainId: request.originChainId,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        sender: getAddress(log.args.from),
        amount: log.args.value,
        blockNumber: log.blockNumber,
        blockTimestamp: times.get(log.blockNumber)!,
      });
      if (isNew) found++;
    }
    const endTime = times.get(end) ?? (await blockTime(client, end));
    const atHead = new Date(headReadAt.getTime() - BLOCK_ARRIVAL_MARGIN_MS);
    await updateRequest(db, request.id, { scannedBlock: end, scannedThrough: end === head && atHead > endTime ? atHead : endTime });
    from = end + 1n;
  }
  return found;
}
