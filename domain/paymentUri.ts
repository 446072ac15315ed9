/**
 * EIP-681 URI for a plain ERC-20 transfer, what a wallet opens from a QR code:
 * `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount>`.
 * `amount` is in the token's smallest unit, as EIP-681 requires for uint256.
 */
export function erc20TransferUri(params: { token: string; chainId: string | number; to: string; amount: bigint }): string {
  return `ethereum:${params.token}@${params.chainId}/transfer?address=${params.to}&uint256=${params.amount}`;
}
