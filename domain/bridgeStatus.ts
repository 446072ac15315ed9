/**
 * Where a bridge request stands, in the bridge's own words (Relay's status enum, which
 * the `local` adapter speaks too), and the service's public `bridgeStatus` for it.
 */
export const BRIDGE_PROGRESS = ["waiting", "depositing", "pending", "submitted", "success", "delayed", "refund", "failure"] as const;
export type BridgeProgress = (typeof BRIDGE_PROGRESS)[number];

/** The progress of a bridge carrying the customer's money: it should leave these within minutes. */
export const CARRYING: readonly BridgeProgress[] = ["depositing", "pending", "submitted", "delayed"];
/**
 * A bridge carrying money with nothing changed for this long is stuck: it is read once a
 * minute instead of every few seconds, and `/payments/health` counts it (never finished: the
 * fill or the refund may still come).
 */
export const BRIDGE_STUCK_MS = 2 * 60 * 60 * 1000;

/** The public `bridgeStatus` values (DESIGN.md, "Decisions for the spec's gaps"). */
export const BRIDGE_STATUSES = ["awaiting_deposit", "deposit_detected", "bridging", "completed", "refunding", "refunded", "failed"] as const;
export type BridgeStatusValue = (typeof BRIDGE_STATUSES)[number];

/**
 * The public `bridgeStatus` of a bridge progress. `refunding` never comes out of this:
 * Relay's `refund` means "successfully refunded" and it reports no refund in flight
 * (a failed fill is `failure`, then `refund` once the money is back), so only the service,
 * knowing it asked for a refund, can say `refunding`.
 */
export function bridgeStatusOf(progress: BridgeProgress): BridgeStatusValue {
  switch (progress) {
    case "waiting":
      return "awaiting_deposit";
    case "depositing":
      return "deposit_detected";
    case "pending":
    case "submitted":
    case "delayed":
      return "bridging";
    case "success":
      return "completed";
    case "refund":
      return "refunded";
    case "failure":
      return "failed";
    default: {
      const unknown: never = progress;
      throw new RangeError(`unknown bridge progress ${String(unknown)}`);
    }
  }
}

/**
 * A cross-chain payment's public `bridgeStatus`: the bridge's progress, except that a
 * refund under way is `refunding` — the bridge listed a refund transaction, or the service
 * asked for a refund, and the bridge has not yet called the request refunded. A completed
 * bridge stays `completed` even while it returns the excess of an overpayment. Relay says
 * `waiting` until it has confirmed a deposit; one the service has verified on the origin
 * chain is `deposit_detected` meanwhile (`awaiting_deposit` asks the customer to pay, and
 * the checkout page would ask them to pay twice).
 */
export function publicBridgeStatus(progress: BridgeProgress, seen: { underWay: boolean; deposited?: boolean }): BridgeStatusValue {
  if (seen.underWay && progress !== "success" && progress !== "refund") return "refunding";
  if (progress === "waiting" && seen.deposited) return "deposit_detected";
  return bridgeStatusOf(progress);
}
