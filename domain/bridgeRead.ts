import { BRIDGE_STUCK_MS, CARRYING, type BridgeProgress, type BridgeStatusValue } from "./bridgeStatus.ts";

/** What a read of the bridge found, each leg checked on its chain (rails/bridge `observeBridge`). */
export type BridgeProgressUpdate = {
  progress: BridgeProgress;
  bridgeStatus: BridgeStatusValue;
  originTxHashes: string[];
  destinationTxHashes: string[];
  refundTxHashes: string[];
  /** Verified on the origin chain: what reached the deposit address, and the block time of the first deposit. */
  depositAmount: bigint;
  depositedAt: Date | null;
  /** Verified on the origin chain: what the refund transactions returned. */
  refundedAmount: bigint;
  /** Verified on the origin chain: the addresses the deposits came from (who paid); absent: none verified. */
  depositSenders?: string[];
  /**
   * Some origin transaction the bridge reports could not be checked on this read (its chain
   * is not configured here, or its node has no receipt for it yet): the deposit and refund
   * an earlier read verified stand, and this read's lower figures do not replace them.
   */
  originUnverified: boolean;
  /** Transfer logs of the payment's token to the merchant's wallet, to claim as its credits. */
  fills: Array<{ chainId: string; txHash: string; logIndex: number; amount: bigint; blockNumber: bigint }>;
  failReason: string | null;
  /** A refund's reason, or the bridge's other remarks. */
  details: string | null;
  bridgeUpdatedAt: Date | null;
  /** The service asked the bridge for a refund during this observation. */
  refundRequested: boolean;
  /** When the read began: a read older than the one recorded is not recorded over it. */
  readAt: Date;
  /** Every deposit stamped at or before this time is in `originTxHashes` (the adapter's `seenThrough`). */
  seenThrough: Date | null;
};

/** What a read records on a bridge request: each field a merchant sees (a change of any is a `bridge.updated`). */
export type BridgeReadFields = Pick<
  BridgeProgressUpdate,
  "progress" | "bridgeStatus" | "originTxHashes" | "destinationTxHashes" | "refundTxHashes" | "depositAmount" | "depositedAt" | "refundedAmount" | "failReason"
> & { refundRequestedAt: Date | null };

/** A request as stored before the read: its fields, and what the watch of it needs. */
export type StoredBridgeRead = BridgeReadFields & { amountToSend: bigint; expiresAt: Date; changedAt: Date };

/** A request that was never paid is watched this long past its expiry (a late deposit is the bridge's to return). */
const UNPAID_GRACE_MS = 60 * 60 * 1000;
/**
 * A bridge that has said its last word (`success`, `failure`) is watched this long after
 * the last change a read found. Relay returns the excess of an overpayment less the gas of
 * the refund (none at all when the gas would eat it, or a failure it cannot refund), and
 * without an API key its status never lists the refund: such a request is otherwise read
 * every few seconds for good.
 */
export const BRIDGE_QUIET_MS = 24 * 60 * 60 * 1000;

/**
 * The fields a read records. Verified legs are only ever added to by a read that could not
 * check them all; a refund's reason stands as the failure's; the moment the service first
 * asked for a refund stays.
 */
export function bridgeReadFields(stored: BridgeReadFields, seen: BridgeProgressUpdate, now: Date): BridgeReadFields {
  const kept = seen.originUnverified
    ? {
        depositAmount: seen.depositAmount > stored.depositAmount ? seen.depositAmount : stored.depositAmount,
        // When paid goes with how much: the time of the larger of the two reads' deposits.
        depositedAt: seen.depositAmount > stored.depositAmount ? seen.depositedAt : (stored.depositedAt ?? seen.depositedAt),
        refundedAmount: seen.refundedAmount > stored.refundedAmount ? seen.refundedAmount : stored.refundedAmount,
      }
    : { depositAmount: seen.depositAmount, depositedAt: seen.depositedAt, refundedAmount: seen.refundedAmount };
  return {
    progress: seen.progress,
    bridgeStatus: seen.bridgeStatus,
    originTxHashes: seen.originTxHashes,
    destinationTxHashes: seen.destinationTxHashes,
    refundTxHashes: seen.refundTxHashes,
    ...kept,
    failReason: seen.failReason ?? (seen.progress === "refund" || seen.bridgeStatus === "refunding" ? seen.details : null),
    refundRequestedAt: stored.refundRequestedAt ?? (seen.refundRequested ? now : null),
  };
}

const canonical = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v));

/** Whether any recorded field differs from what was stored. */
export const bridgeReadChanged = (stored: BridgeReadFields, next: BridgeReadFields): boolean =>
  (Object.keys(next) as Array<keyof BridgeReadFields>).some((key) => canonical(stored[key]) !== canonical(next[key]));

export type BridgeWatch = {
  /** When a merchant-visible field last changed (now, if this read changed one). */
  changedAt: Date;
  /**
   * Nothing more can happen: filled (and any excess returned), refunded, never paid long after
   * expiry, or a success or failure nothing has changed in for BRIDGE_QUIET_MS.
   */
  finished: boolean;
  /** The merchant's side is settled — filled, or the bridge failed — and only a refund may still show: read it less often. */
  settled: boolean;
  /** Carrying the money with nothing changed for BRIDGE_STUCK_MS: read it less often. */
  stuck: boolean;
};

/**
 * How the watch of a request goes on after a read that recorded `next` (`changed`: a field or
 * a fill is new) with `filled` of the payment's `amount` claimed from fills found on chain.
 */
export function bridgeWatch(input: { stored: StoredBridgeRead; next: BridgeReadFields; filled: bigint; amount: bigint; changed: boolean; now: Date }): BridgeWatch {
  const { stored, next, filled, amount, now } = input;
  // Filled, and any excess the customer sent returned (a strict bridge refunds it separately,
  // less the refund's gas: a verified refund of it is the return).
  const excess = next.depositAmount > stored.amountToSend ? next.depositAmount - stored.amountToSend : 0n;
  const changedAt = input.changed ? now : stored.changedAt;
  const since = now.getTime() - changedAt.getTime();
  const quiet = (next.progress === "success" || next.progress === "failure") && since >= BRIDGE_QUIET_MS;
  const finished =
    (next.progress === "success" && filled >= amount && (excess === 0n || next.refundedAmount > 0n)) ||
    next.progress === "refund" ||
    // Never paid: Relay's `waiting` also covers a deposit it lists but has not confirmed yet, whose fill is still to come.
    (next.progress === "waiting" && next.originTxHashes.length === 0 && next.depositAmount === 0n && now.getTime() > stored.expiresAt.getTime() + UNPAID_GRACE_MS) ||
    quiet;
  return {
    changedAt,
    finished,
    settled: (next.progress === "success" && filled >= amount) || next.progress === "failure",
    stuck: CARRYING.includes(next.progress) && since >= BRIDGE_STUCK_MS,
  };
}

/**
 * Why a payment ends `failed` when its bridge gives the money back or loses it before any of
 * it reached the payment's chain (`settle` decides whether it ends); null while the bridge
 * has not given up.
 */
export function bridgeGaveUp(read: Pick<BridgeReadFields, "progress" | "failReason">): string | null {
  if (read.progress !== "refund" && read.progress !== "failure") return null;
  return `The bridge ${read.progress === "refund" ? "refunded the customer" : "failed"}${read.failReason ? `: ${read.failReason}` : ""}`;
}
