/** A token amount as real nodes render it: raw integer string plus decimal forms. */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/**
 * Renders an amount in the token's smallest unit. `uiAmount` is the lossy float real
 * nodes include; transaction metas show it as null for a zero balance (`zeroAsNull`).
 */
export function uiTokenAmount(amount: bigint, decimals: number, options: { zeroAsNull?: boolean } = {}): UiTokenAmount {
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: options.zeroAsNull && amount === 0n ? null : Number(amount) / 10 ** decimals,
    uiAmountString: decimalString(amount, decimals),
  };
}

/** "1.5" for 1500000 with 6 decimals: exact, trailing zeros trimmed. */
function decimalString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
