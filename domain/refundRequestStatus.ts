/**
 * Where a refund request stands. `awaiting_approval`: sends nothing until the merchant
 * approves it or a paying address signs for it; `sent`: a refund transfer was reserved for
 * it (`transferId`; the transfer's own status says how far it got); `rejected`: the merchant
 * said no; `superseded`: another refund of the payment went out first. Only
 * `awaiting_approval` ever changes (the transitions are in `payouts/`).
 */
export const refundRequestStatuses = ["awaiting_approval", "sent", "rejected", "superseded"] as const;
export type RefundRequestStatus = (typeof refundRequestStatuses)[number];

/**
 * Who let a request's refund go out: `payer` (it goes back to the one address that paid),
 * `signature` (a paying address signed for its destination and amount), `merchant` (key +
 * secret: asked or approved by the merchant).
 */
export const refundAuthorities = ["payer", "signature", "merchant"] as const;
export type RefundAuthority = (typeof refundAuthorities)[number];
