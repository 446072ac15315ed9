import { isAddressEqual, type Address } from "viem";
import { bridgeFillsOf, bridgeRequestsOf } from "../../db/bridgeRequests.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { bridgeGaveUp } from "../../domain/bridgeRead.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { blockTime } from "../evm/blockTime.ts";
import { evmClient } from "../evm/client.ts";
import type { LoadedCredits, RailContext, SourcedCredit } from "../types.ts";
import { receiptTransfers } from "./receiptTransfers.ts";

/**
 * A cross-chain payment's credits: the destination leg only, the fills claimed for it
 * (`bridge_fills`), each re-read from its receipt on the merchant's chain every time it is
 * counted: the same token, to the merchant's wallet, the same amount, at the block the
 * chain has it in now. A fill whose receipt is gone (a reorg) does not count. The origin
 * deposit is never a credit, so the two legs cannot both count.
 *
 * A bridged credit's `timestamp` is when the customer paid: the origin deposit's block
 * time (the expiry is judged by it: the bridge's own fill comes later), or the fill's own
 * block time when the deposit could not be verified. Each payment's `evidenceThrough` is
 * how far its bridge's deposit reports are complete: its expiry waits for it. A bridge that
 * refunded or failed is in `gaveUp`, with why.
 */
export async function loadBridgeCredits(ctx: RailContext, payments: readonly PaymentRow[]): Promise<LoadedCredits> {
  const result = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  // A destination node failing on one fill's receipt leaves that payment as it stands, not the whole batch.
  const unreadable = new Set<string>();
  const ids = payments.map((p) => p.id);
  const [requests, fills] = await Promise.all([bridgeRequestsOf(ctx.db, ids), bridgeFillsOf(ctx.db, ids)]);
  // No deposit can predate its request: one never read yet is known complete up to its creation.
  const evidenceThrough = new Map(requests.map((r) => [r.paymentId, r.seenThrough ?? r.createdAt]));
  // A bridge that refunded or failed is evidence too: `settle` ends the payment if none of the money arrived.
  const gaveUp = new Map(requests.flatMap((r) => {
    const why = bridgeGaveUp(r);
    return why ? [[r.paymentId, why] as const] : [];
  }));
  if (fills.length === 0) return Object.assign(result, { unreadable, evidenceThrough, gaveUp });
  const paymentsById = new Map(payments.map((p) => [p.id, p]));
  const paidAt = new Map(requests.map((r) => [r.paymentId, r.depositedAt]));
  // Who paid is the origin deposit's sender; a fill counts for one only when a single address deposited.
  const payerOf = new Map(requests.map((r) => [r.paymentId, r.depositSenders.length === 1 ? r.depositSenders[0]! : null]));
  // Read inside the reconcile's transaction, under its locks: every receipt at once, so the
  // locks wait for the slowest read, not for the sum of them.
  const read = async (fill: (typeof fills)[number], payment: PaymentRow): Promise<SourcedCredit | null> => {
    const network = ctx.config.networks.find((n) => n.chainId === fill.chainId && n.enabled && n.rpcUrl);
    if (!network || fill.chainId !== payment.chainId) return null;
    const client = evmClient(network, ctx.config.rpcTimeoutMs * 5);
    const moved = await receiptTransfers(client, fill.txHash, payment.tokenAddress);
    // No receipt from a node below the fill's block (one of several behind the URL, lagging):
    // it has not seen the fill yet, which is no reorg; the payment stands until a node has.
    if (!moved && fill.blockNumber !== null && (await client.getBlockNumber({ cacheTime: 0 })) < fill.blockNumber) {
      throw new ServiceUnavailableError(`the ${network.name} node answering is behind block ${fill.blockNumber} of fill ${fill.txHash}`);
    }
    const log = moved?.transfers.find((t) => t.logIndex === fill.logIndex && t.value === fill.amount && isAddressEqual(t.to, payment.merchantWallet as Address));
    if (!moved || !log) return null;
    return {
      amount: log.value,
      blockNumber: moved.blockNumber,
      logIndex: log.logIndex,
      timestamp: paidAt.get(payment.id) ?? (await blockTime(client, moved.blockNumber)),
      txHash: fill.txHash,
      source: "bridge",
      payer: payerOf.get(payment.id) ?? null,
    };
  };
  const outcomes = await Promise.all(
    fills.map(async (fill) => {
      const payment = paymentsById.get(fill.paymentId)!;
      try {
        return { payment, credit: await read(fill, payment) };
      } catch (error) {
        ctx.logger.warn({ err: error, payment: payment.id, fill: fill.txHash }, "could not read a bridge fill's receipt; the payment stands as it is until the next reconcile");
        unreadable.add(payment.id);
        return { payment, credit: null };
      }
    }),
  );
  for (const { payment, credit } of outcomes) if (credit && !unreadable.has(payment.id)) result.get(payment.id)!.push(credit);
  for (const id of unreadable) result.set(id, []);
  return Object.assign(result, { unreadable, evidenceThrough, gaveUp });
}

/**
 * Cross-chain payments whose customer paid in full in time and whose bridge is still carrying
 * the money (not refunded, not failed, no refund under way, not a success whose watch ended),
 * by payment: when it was paid. A deposit short of what the bridge asked for holds nothing
 * past the deadline: the payment expires as an underpaid direct one does.
 */
export async function bridgeInTransit(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, Date>> {
  const requests = await bridgeRequestsOf(
    ctx.db,
    payments.map((p) => p.id),
  );
  const result = new Map<string, Date>();
  for (const r of requests) {
    // A `success` whose watch has ended carries nothing more: fills short of the amount stay short.
    const done = r.progress === "success" && r.finishedAt !== null;
    const carrying = r.progress !== "refund" && r.progress !== "failure" && r.bridgeStatus !== "refunding" && !done;
    const paidInFull = r.depositAmount >= r.amountToSend;
    if (r.depositedAt && paidInFull && r.depositedAt.getTime() <= r.expiresAt.getTime() && carrying) result.set(r.paymentId, r.depositedAt);
  }
  return result;
}
