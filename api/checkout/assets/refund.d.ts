/** Types of `refund.js` for its tests (the browser runs it as is). */
import type { Messages } from "../messages/en.ts";

export function refusalOf(t: Messages, error: string | undefined, view: { merchantName: string }): string;
export function messageFor(view: { id: string; token: string; networkName: string | null; network: string | null; chainId: string }, request: { to: string; amount: string }): string;
export function setUpRefund(options: { t: Messages; locale: string; apiBase: string; getView: () => unknown; onRequested: () => void }): void;
