import { erc20Abi, getAbiItem, getAddress, isAddressEqual, zeroAddress, type Address, type PublicClient } from "viem";
import type { Config, Network } from "../../config/index.ts";
import type { BridgeRequestRow } from "../../db/bridgeRequests.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { BridgeProgressUpdate } from "../../domain/bridgeRead.ts";
import { publicBridgeStatus, type BridgeProgress } from "../../domain/bridgeStatus.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { blockTime } from "../evm/blockTime.ts";
import { evmClient } from "../evm/client.ts";
import type { BridgeObservation } from "../ports/crossChain.ts";
import type { RailContext } from "../types.ts";
import { bridgeAdapter } from "./adapters.ts";
import { receiptTransfers } from "./receiptTransfers.ts";

/** A transfer log of the payment's token to the merchant's wallet in a fill transaction: a candidate credit. */
export type ObservedFill = BridgeProgressUpdate["fills"][number];

export type { BridgeObservation };

/** Progress in which nothing has been sent to the merchant yet, so a refund can still be asked for. */
const UNFILLED: readonly BridgeProgress[] = ["waiting", "depositing", "pending"];

const networkOf = (config: Config, chainId: string): Network | undefined =>
  config.networks.find((n) => n.chainId === chainId && n.enabled && n.type === "evm" && n.rpcUrl);

/**
 * Reads a cross-chain payment's bridge request from its adapter and checks each leg on
 * chain from its receipts: the deposits into the origin deposit address (amount, and the
 * block time the expiry is judged by), the refunds back on the origin chain, and the fill
 * transfers of the payment's token to the merchant's wallet on the destination chain. A
 * payment the merchant closed before it was filled gets its refund asked for, from a
 * bridge that refunds on request: of a deposit waiting unfilled, or of any deposit to come.
 */
export async function observeBridge(ctx: RailContext, payment: PaymentRow, request: BridgeRequestRow): Promise<BridgeObservation> {
  const origin = networkOf(ctx.config, request.originChainId);
  const destination = networkOf(ctx.config, payment.chainId);
  const adapter = bridgeAdapter(ctx, request.adapter, (origin ?? destination)?.isTestnet ?? true);
  const ref = { requestId: request.requestId, depositAddress: request.depositAddress };
  const readAt = new Date();
  let status = await adapter.status(ref);
  let refundRequested = false;
  // Asked before any deposit too: a deposit made after the merchant closed the payment is then returned, never filled.
  if (adapter.refundsOnRequest && payment.closedStatus && !request.refundRequestedAt && UNFILLED.includes(status.progress)) {
    status = await adapter.refund({ ...ref, refundTo: request.refundTo ?? zeroAddress });
    refundRequested = true;
  }

  const timeout = ctx.config.rpcTimeoutMs * 5;
  const depositAddress = getAddress(request.depositAddress);
  let depositAmount = 0n;
  let depositedAt: Date | null = null;
  let refundedAmount = 0n;
  let depositSenders: string[] = [];
  // A hash the bridge reports whose receipt this read cannot see proves nothing either way.
  let originUnverified = !origin && status.originTxHashes.length + status.refundTxHashes.length > 0;
  let originTxHashes = status.originTxHashes;
  if (origin) {
    const client = evmClient(origin, timeout);
    // Each deposit log once: a bridge may list the customer's transaction, its own sweep of the
    // address, or both; the customer's transfers into the address are what was deposited.
    const deposits = new Map<string, { txHash: string; value: bigint; blockNumber: bigint; from: string }>();
    const sweptAt: bigint[] = [];
    for (const hash of status.originTxHashes) {
      const moved = await receiptTransfers(client, hash, request.originTokenAddress);
      if (!moved) originUnverified = true;
      for (const t of moved?.transfers ?? []) {
        if (isAddressEqual(t.to, depositAddress)) deposits.set(`${hash.toLowerCase()}:${t.logIndex}`, { txHash: hash, value: t.value, blockNumber: moved!.blockNumber, from: t.from });
        else if (isAddressEqual(t.from, depositAddress)) sweptAt.push(moved!.blockNumber);
      }
    }
    // Relay lists its sweep of a deposit address into its depository as the incoming
    // transaction: the customer's deposits are the transfers into the address before it.
    for (const block of sweptAt) {
      for (const t of await transfersInto(client, request.originTokenAddress as Address, depositAddress, block)) deposits.set(`${t.txHash.toLowerCase()}:${t.logIndex}`, t);
    }
    // Paid when the deposits, in block order, first add up to what the bridge asked for: a
    // dust transfer in time does not make a payment that came after its deadline paid in
    // time. Short of it, when the last of what was paid arrived.
    const inOrder = [...deposits.values()].sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : a.blockNumber > b.blockNumber ? 1 : 0));
    for (const d of inOrder) {
      const reached = depositAmount >= request.amountToSend;
      depositAmount += d.value;
      if (!reached) depositedAt = await blockTime(client, d.blockNumber);
    }
    depositSenders = [...new Set([...deposits.values()].map((d) => getAddress(d.from)))];
    const listed = new Set(status.originTxHashes.map((h) => h.toLowerCase()));
    originTxHashes = [...status.originTxHashes, ...new Set([...deposits.values()].map((d) => d.txHash).filter((h) => !listed.has(h.toLowerCase())))];
    const refundTo = request.refundTo ? getAddress(request.refundTo) : null;
    for (const hash of status.refundTxHashes) {
      const moved = await receiptTransfers(client, hash, request.originTokenAddress);
      if (!moved) originUnverified = true;
      for (const t of moved?.transfers ?? []) {
        if (isAddressEqual(t.to, depositAddress)) continue;
        if (isAddressEqual(t.from, depositAddress) || (refundTo && isAddressEqual(t.to, refundTo))) refundedAmount += t.value;
      }
    }
  }
  const fills: ObservedFill[] = [];
  if (destination) {
    const client = evmClient(destination, timeout);
    for (const hash of status.destinationTxHashes) {
      const moved = await receiptTransfers(client, hash, payment.tokenAddress);
      for (const t of moved?.transfers ?? []) {
        if (isAddressEqual(t.to, payment.merchantWallet as Address)) fills.push({ chainId: payment.chainId, txHash: hash.toLowerCase(), logIndex: t.logIndex, amount: t.value, blockNumber: moved!.blockNumber });
      }
    }
  }
  // A refund asked for while nothing was deposited has nothing under way until a deposit comes.
  const asked = refundRequested || request.refundRequestedAt !== null;
  // While the bridge is still filling, a refund it lists returns another deposit (a customer
  // who paid twice), not the one being filled: that money is still carried.
  const filling = status.progress === "pending" || status.progress === "submitted" || status.progress === "delayed";
  const underWay = (status.refundTxHashes.length > 0 && !filling) || (asked && status.originTxHashes.length > 0);
  return {
    progress: status.progress,
    bridgeStatus: publicBridgeStatus(status.progress, { underWay, deposited: depositAmount > 0n }),
    originTxHashes,
    destinationTxHashes: status.destinationTxHashes,
    refundTxHashes: status.refundTxHashes,
    depositAmount,
    depositedAt,
    refundedAmount,
    depositSenders,
    originUnverified,
    fills,
    failReason: status.failReason ?? status.refundFailReason ?? null,
    details: status.details ?? null,
    bridgeUpdatedAt: status.updatedAt,
    refundRequested,
    readAt,
    seenThrough: status.seenThrough,
  };
}

/** Blocks before a sweep searched for the deposits it swept (a bridge sweeps within minutes; providers cap a log range near this). */
const SWEEP_LOOKBACK_BLOCKS = 2_000n;

/** Transfers of `token` into `address` in the blocks up to a sweep out of it, from the chain's logs. */
async function transfersInto(client: PublicClient, token: Address, address: Address, sweptAt: bigint) {
  const logs = await client
    .getLogs({ address: token, event: transferEvent, args: { to: address }, fromBlock: sweptAt > SWEEP_LOOKBACK_BLOCKS ? sweptAt - SWEEP_LOOKBACK_BLOCKS : 0n, toBlock: sweptAt })
    .catch((error: Error) => {
      throw new ServiceUnavailableError(`Could not read the deposits into ${address}: ${error.message.split("\n")[0]}`);
    });
  return logs.map((log) => ({ txHash: log.transactionHash, logIndex: log.logIndex, value: log.args.value!, blockNumber: log.blockNumber, from: log.args.from! }));
}

const transferEvent = getAbiItem({ abi: erc20Abi, name: "Transfer" });
