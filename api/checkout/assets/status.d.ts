/** Types of `status.js` for the server, which renders the first paint with it. */
import type { Messages } from "../messages/en.ts";
import type { PublicPaymentView } from "../../presenters/publicPayment.ts";

export type Phase = "waiting" | "partial" | "confirming" | "completed" | "overpaid" | "expiring" | "expired" | "closed" | "bridging" | "refunding" | "refunded";
export type Tone = "info" | "progress" | "success" | "warning";

export function format(template: string, values: Record<string, string | number | null | undefined>): string;
export function formatAmount(amount: string, locale: string): string;
export function payingOf(view: PublicPaymentView): { amount: string; token: string; network: string | null; address: string | null; logo: string | null; decimals: number };
export function phaseOf(view: PublicPaymentView, now: number): Phase;
export function describeStatus(view: PublicPaymentView, t: Messages, locale: string, now: number): { phase: Phase; tone: Tone; title: string; detail: string };
export function sectionsOf(
  view: PublicPaymentView,
  now: number,
): { pay: boolean; manual: boolean; countdown: boolean; progress: boolean; delayed: boolean; refund: boolean; transaction: boolean; success: boolean; cancel: boolean };
export function refundLines(view: PublicPaymentView, t: Messages, locale: string): string[];
export function timeLeft(expiresAt: string, now: number): { text: string; duration: string; seconds: number };
