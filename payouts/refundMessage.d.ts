/** Types of `refundMessage.js` (plain JavaScript: the checkout page loads it as is). */
export const REFUND_MESSAGE_VERSION: number;
export function refundMessage(fields: { paymentId: string; to: string; amount: string; token: string; network: string; chainId: string }): string;
