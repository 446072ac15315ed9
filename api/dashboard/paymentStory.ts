import type { Network } from "../../config/index.ts";
import type { PaymentRecords } from "../../db/paymentStory.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { explorerTxUrl } from "../../domain/explorerTxUrl.ts";
import { html, type Html } from "./html.ts";

/** One moment of a payment's story: when, what, and the details (transactions linked to the explorer). */
export type StoryEntry = { at: Date; title: string; detail: Html };

const EVENT_TITLES: Record<string, string> = {
  "payment.created": "Created",
  "payment.detected": "Money detected",
  "payment.confirmed": "Confirmed",
  "payment.completed": "Completed",
  "payment.expired": "Expired",
  "payment.failed": "Failed",
  "payment.cancelled": "Cancelled",
  "payment.underpaid": "Underpaid",
  "payment.overpaid": "Overpaid",
  "payment.late_payment": "Money arrived late",
  "payment.forwarded": "Swept to the merchant's wallet",
  "payment.refunded": "Refunded",
  "payment.forward_reverted": "A sweep was reverted",
  "payment.refund_reverted": "A refund was reverted",
  "payment.reverted": "A credited transfer was reverted (reorg)",
  "refund.requested": "Refund requested",
  "bridge.updated": "Bridge leg updated",
};

/** A transaction hash, linked to the network's explorer when it has one. */
export function txLink(network: Network | undefined, hash: string): Html {
  const url = explorerTxUrl(network?.explorerUrl ?? null, hash);
  return url ? html`<a class="mono" href="${url}" rel="noopener noreferrer">${hash}</a>` : html`<code>${hash}</code>`;
}

const snapshotOf = (payload: Record<string, unknown>) => (payload.payment && typeof payload.payment === "object" ? (payload.payment as Record<string, unknown>) : {});
const str = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v) : null);

/**
 * The payment's story in time order: its events (each credit's transaction and confirmations
 * as the event saw them), money sent out (sweeps and refunds with their transactions), refund
 * requests and their decisions, and every webhook attempt with the answer it got.
 */
export function paymentStory(payment: PaymentRow, network: Network | undefined, records: PaymentRecords): StoryEntry[] {
  const units = (v: bigint) => `${formatAmount(v, payment.tokenDecimals)} ${payment.tokenSymbol}`;
  const entries: StoryEntry[] = [];
  const typeOf = new Map(records.events.map((e) => [e.id, e.type]));
  if (!records.events.some((e) => e.type === "payment.created")) {
    entries.push({ at: payment.createdAt, title: "Created", detail: html`for ${units(payment.amount)}` });
  }
  for (const e of records.events) {
    const p = snapshotOf(e.payload);
    const hash = str(p.transactionHash);
    entries.push({
      at: e.createdAt,
      title: EVENT_TITLES[e.type] ?? e.type,
      detail: html`status ${str(p.status) ?? ""}; received ${str(p.amountReceived) ?? "?"} of ${str(p.amount) ?? "?"} ${str(p.token) ?? ""}${
        p.confirmations !== undefined ? html`; ${str(p.confirmations)} confirmation(s)` : null
      }${hash ? html`; transaction ${txLink(network, hash)}` : null}`,
    });
  }
  for (const t of records.transfers) {
    const what = t.kind === "refund" ? "Refund" : t.kind === "native_sweep" ? "Native coin sweep" : "Sweep";
    entries.push({
      at: t.createdAt,
      title: `${what} ${t.status}`,
      detail: html`${t.kind === "native_sweep" ? null : units(t.amount)} to <code>${t.toAddress}</code>${t.txHash ? html`; transaction ${txLink(network, t.txHash)}` : null}${t.error ? html`; ${t.error}` : null}`,
    });
  }
  for (const r of records.requests) {
    if (r.decidedAt) entries.push({ at: r.decidedAt, title: `Refund request ${r.status.replaceAll("_", " ")}`, detail: html`${units(r.amount)} to <code>${r.toAddress}</code>` });
  }
  for (const d of records.deliveries) {
    const type = typeOf.get(d.eventId) ?? "event";
    if (d.attemptLog.length === 0) entries.push({ at: d.createdAt, title: `Webhook ${type} queued`, detail: html`to ${d.url} (${d.status})` });
    for (const a of d.attemptLog) {
      entries.push({
        at: a.at,
        title: `Webhook ${type}, attempt ${a.attempt}`,
        detail: html`to ${d.url}: ${a.statusCode === null ? html`no answer (${a.error ?? "error"})` : html`HTTP ${a.statusCode}`} in ${a.latencyMs} ms`,
      });
    }
  }
  return entries.sort((a, b) => a.at.getTime() - b.at.getTime());
}
