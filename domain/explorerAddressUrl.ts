/**
 * The page of `address` on a block explorer whose home is `explorerUrl`: `<home>/address/<address>`,
 * the path Etherscan-like explorers and Solana's explorer share, keeping the home's query
 * (`?cluster=devnet`). Null without an explorer, or for a home that is not a URL.
 */
export function explorerAddressUrl(explorerUrl: string | null, address: string): string | null {
  if (!explorerUrl) return null;
  let url: URL;
  try {
    url = new URL(explorerUrl);
  } catch {
    return null;
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/address/${encodeURIComponent(address)}`;
  return url.toString();
}
