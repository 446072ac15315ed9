import { BRIDGE_PROGRESS, type BridgeProgress } from "../../../domain/bridgeStatus.ts";
import { BridgeUnavailableError } from "../../../domain/errors.ts";
import type { BridgeStatus } from "../adapter.ts";
import { listRelayRequests } from "./listRelayRequests.ts";
import { isRecord, stringField, stringsField } from "./readJson.ts";
import { refusedRead } from "./refusedRead.ts";
import { requestRelay } from "./requestRelay.ts";
import { RELAY_DEPOSIT_LAG_MS, type RelayAdapterOptions } from "./types.ts";

const isProgress = (value: unknown): value is BridgeProgress => (BRIDGE_PROGRESS as readonly unknown[]).includes(value);

/**
 * Relay's names for a finished refund besides `refund`: its v3 status table says `refunded`,
 * and earlier versions answered `fallback` (docs.relay.link, Get Status v2/v3). Read as an
 * unknown status, a refund was never recognised and the payment stayed pending.
 */
const REFUND_ALIASES: readonly unknown[] = ["refunded", "fallback"];
const progressOf = (value: unknown): BridgeProgress | undefined => (isProgress(value) ? value : REFUND_ALIASES.includes(value) ? "refund" : undefined);

/** Relay's "nothing to say" for `failReason` / `refundFailReason` (v2 and webhooks; v3 uses null). */
const noReason = (value: unknown) => {
  const reason = stringField(value);
  return reason === undefined || reason === "N/A" ? undefined : reason;
};

/**
 * Where a Relay request stands. The progress is `GET /intents/status/v3?requestId=`
 * (`status`, `inTxHashes` = origin, `txHashes` = outgoing, `updatedAt` in ms, `details`).
 * With a deposit address and an API key, `GET /requests/v3?depositAddress=` adds every
 * transaction Relay recorded for the address: `data.inTxs[].txHash` (origin),
 * `data.outTxs[].txHash`, and `protocol.settlement.destination.fills|refunds[].transactionId`.
 *
 * Outgoing transactions are refunds when Relay lists them under `refunds`, when the request
 * ended in `refund`, or when they ran on the origin chain of a cross-chain request (refunds
 * are paid on the origin chain); otherwise they are the destination fill. A strict address
 * that was overpaid has both: the fill, and the excess going back.
 */
export async function readRelayStatus(options: RelayAdapterOptions, request: { requestId: string; depositAddress?: string }): Promise<BridgeStatus> {
  // Relay learns of a deposit some time after its block: the answer covers blocks stamped that long before the read.
  const readAt = (options.now ?? (() => new Date()))();
  const seenThrough = new Date(readAt.getTime() - (options.depositLagMs ?? RELAY_DEPOSIT_LAG_MS));
  const answer = await requestRelay(options, { method: "GET", path: "/intents/status/v3", query: { requestId: request.requestId } });
  const body = isRecord(answer.body) ? answer.body : undefined;
  if (answer.status < 200 || answer.status >= 300 || !body) {
    const reason = stringField(body?.message);
    throw new BridgeUnavailableError("relay", `GET /intents/status/v3 answered ${answer.status}${reason ? `: ${reason}` : ""}`, {
      httpStatus: answer.status,
      bridgeCode: stringField(body?.errorCode),
      retryable: !refusedRead(answer.status),
    });
  }
  const progress = progressOf(body.status);
  if (!progress) throw new BridgeUnavailableError("relay", `GET /intents/status/v3: unknown status ${JSON.stringify(body.status)}`);

  const origin = new HashList(stringsField(body.inTxHashes));
  const outgoing = stringsField(body.txHashes);
  const destination = new HashList(progress === "refund" ? [] : outgoing);
  const refunds = new HashList(progress === "refund" ? outgoing : []);
  let updatedAt = typeof body.updatedAt === "number" && Number.isFinite(body.updatedAt) ? new Date(body.updatedAt) : null;
  let failReason = noReason(body.failReason);
  let refundFailReason = noReason(body.refundFailReason);

  if (request.depositAddress && options.apiKey) {
    const originChainId = typeof body.originChainId === "number" ? body.originChainId : undefined;
    const crossChain = originChainId !== undefined && originChainId !== body.destinationChainId;
    for (const record of await listRelayRequests(options, request.depositAddress)) {
      const data = isRecord(record.data) ? record.data : {};
      const settlement = isRecord(record.protocol) && isRecord(record.protocol.settlement) ? record.protocol.settlement : {};
      const settled = isRecord(settlement.destination) ? settlement.destination : {};
      const refundIds = new HashList(transactionIds(settled.refunds));

      for (const tx of txs(data.inTxs)) origin.add(tx.hash);
      // The customer's own deposit into the address (inTxs may list only Relay's sweep of it).
      const deposit = isRecord(record.depositAddress) ? stringField(record.depositAddress.depositTxHash) : undefined;
      if (deposit) origin.add(deposit);
      for (const hash of transactionIds(settled.fills)) destination.add(hash);
      for (const hash of refundIds.values) refunds.add(hash);
      for (const tx of txs(data.outTxs)) {
        const isRefund = refundIds.has(tx.hash) || progressOf(record.status) === "refund" || (crossChain && tx.chainId === originChainId);
        (isRefund ? refunds : destination).add(tx.hash);
      }

      failReason ??= noReason(data.failReason);
      refundFailReason ??= noReason(data.refundFailReason);
      const recordUpdatedAt = typeof record.updatedAt === "string" ? Date.parse(record.updatedAt) : Number.NaN;
      if (!Number.isNaN(recordUpdatedAt) && (!updatedAt || recordUpdatedAt > updatedAt.getTime())) updatedAt = new Date(recordUpdatedAt);
    }
  }

  const details = stringField(body.details);
  return {
    requestId: request.requestId,
    progress,
    originTxHashes: origin.values,
    destinationTxHashes: destination.values.filter((hash) => !refunds.has(hash)),
    refundTxHashes: refunds.values,
    updatedAt,
    seenThrough,
    ...(details ? { details } : {}),
    ...(failReason ? { failReason } : {}),
    ...(refundFailReason ? { refundFailReason } : {}),
  };
}

/** `inTxs` / `outTxs` entries: v3 names the hash `txHash` (v2 said `hash`). */
function txs(value: unknown): { hash: string; chainId: number | undefined }[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).flatMap((tx) => {
    const hash = stringField(tx.txHash);
    return hash ? [{ hash, chainId: typeof tx.chainId === "number" ? tx.chainId : undefined }] : [];
  });
}

const transactionIds = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter(isRecord).flatMap((entry) => stringField(entry.transactionId) ?? []) : [];

/** Transaction hashes in first-seen order, without repeats (hex compared case-insensitively). */
class HashList {
  readonly values: string[] = [];
  private readonly seen = new Set<string>();
  constructor(initial: string[] = []) {
    for (const hash of initial) this.add(hash);
  }
  add(hash: string) {
    const key = hash.toLowerCase();
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.values.push(hash);
  }
  has(hash: string) {
    return this.seen.has(hash.toLowerCase());
  }
}
