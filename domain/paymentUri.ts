/**
 * EIP-681 URI for a plain ERC-20 transfer, what a wallet opens from a QR code:
 * `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount>`.
 * `amount` is in the token's smallest unit, as EIP-681 requires for uint256.
 */
export function erc20TransferUri(params: { token: string; chainId: string | number; to: string; amount: bigint }): string {
  return `ethereum:${params.token}@${params.chainId}/transfer?address=${params.to}&uint256=${params.amount}`;
}

/**
 * Solana Pay transfer request: `solana:<recipient>?amount=<decimal>&spl-token=<mint>&reference=<key>&label=…&message=…`.
 * `amount` is in whole tokens as a plain decimal (never an exponent), as the Solana Pay
 * spec requires; the recipient is a wallet (owner), whose associated token account the
 * wallet pays. Optional parts are left out when absent.
 */
export function solanaPayTransferUri(params: { recipient: string; amount: string; splToken: string; reference?: string; label?: string; message?: string }): string {
  const query = [`amount=${params.amount}`, `spl-token=${params.splToken}`];
  if (params.reference) query.push(`reference=${params.reference}`);
  if (params.label) query.push(`label=${encodeURIComponent(params.label)}`);
  if (params.message) query.push(`message=${encodeURIComponent(params.message)}`);
  return `solana:${params.recipient}?${query.join("&")}`;
}
