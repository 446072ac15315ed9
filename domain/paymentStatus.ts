/**
 * A payment's states, defined once: `pending` (awaiting funds, possibly partly paid),
 * `confirming` (the full amount seen, not yet deep enough), `completed`, and the ends
 * `expired`, `failed`, `cancelled`. The database column and the API take these values.
 */
export const paymentStatuses = ["pending", "confirming", "completed", "expired", "failed", "cancelled"] as const;

export type PaymentStatus = (typeof paymentStatuses)[number];

/** States in which the payment can no longer change without new chain evidence. */
export const isFinal = (status: PaymentStatus) => status !== "pending" && status !== "confirming";
