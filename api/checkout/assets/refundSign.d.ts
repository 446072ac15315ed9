/** Types of `refundSign.js` for its tests (the browser runs it as is). */
export function signerFor(protocol: string | null | undefined): unknown;
export function signRefundMessage(protocol: "eip1193" | "solana", wallet: unknown, message: string): Promise<string>;
