import type { RefundAuthority } from "../domain/refundRequestStatus.ts";
import type { Payers } from "../reconcile/index.ts";
import type { RefundRefusal } from "./refundDue.ts";

/** Who asks: `customer` (no credentials, or the public key: anyone may hold those) or `merchant` (key + secret). */
export type RefundRequester = "customer" | "merchant";

export type RefundAsk = {
  requestedBy: RefundRequester;
  /** The destination named, in the rail's canonical form; null: none (back to the payer). */
  to: string | null;
  /** A paying address whose signature over `to` and `amount` verified (the caller checked it). */
  signed: { signer: string; amount: bigint } | null;
};

/**
 * `send`: reserve the refund now, to `to`, for at most `cap` (null: what is owed); `await`:
 * record the request and send nothing until the merchant approves it or a payer signs for it.
 */
export type RefundRoute =
  | { action: "send"; to: string; authorizedBy: RefundAuthority; cap: bigint | null }
  | { action: "await"; to: string }
  | { action: "refuse"; refusal: RefundRefusal };

/** The one address that paid, when exactly one did and every credit's payer is known. */
export function solePayer(payers: Payers): string | null {
  if (payers.unknown > 0n || payers.byAddress.size !== 1) return null;
  return [...payers.byAddress.keys()][0]!;
}

/**
 * Where a refund may go, and on whose word (the policy, in one place):
 * - the merchant (key + secret) may send anywhere; without an address, to the sole payer;
 * - a signature by a paying address sends to the address it names, for at most what the
 *   signature covers and what that address itself paid (never another payer's money);
 * - otherwise a refund goes back to the address that paid, when exactly one did: a request
 *   naming it, or naming nothing, sends; any other address waits for approval or a signature;
 * - where several addresses paid (or who paid is not known) nothing goes out on a customer's
 *   word alone: naming nothing is refused, naming an address waits.
 * What is owed still caps every refund (`refundDue`).
 */
export function routeRefund(ask: RefundAsk, payers: Payers): RefundRoute {
  const sole = solePayer(payers);
  if (ask.requestedBy === "merchant") {
    const to = ask.to ?? sole;
    return to ? { action: "send", to, authorizedBy: "merchant", cap: null } : { action: "refuse", refusal: addressRequired(payers) };
  }
  if (ask.signed && ask.to) {
    const paid = payers.byAddress.get(ask.signed.signer) ?? 0n;
    return { action: "send", to: ask.to, authorizedBy: "signature", cap: paid < ask.signed.amount ? paid : ask.signed.amount };
  }
  if (sole && (ask.to === null || ask.to === sole)) return { action: "send", to: sole, authorizedBy: "payer", cap: null };
  if (ask.to === null) return { action: "refuse", refusal: addressRequired(payers) };
  return { action: "await", to: ask.to };
}

function addressRequired(payers: Payers): RefundRefusal {
  const who =
    payers.byAddress.size > 1
      ? `${payers.byAddress.size} addresses paid this payment`
      : payers.byAddress.size === 0
        ? "the address that paid this payment is not known"
        : "part of this payment came from an address that is not known";
  return {
    code: "refund_address_required",
    message: `Name the address to refund: ${who}, so none of them is refunded by default. A request for an address is sent once the merchant approves it or a paying address signs for it.`,
  };
}
