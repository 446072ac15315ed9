/**
 * The page of transaction `hash` on a block explorer whose home is `explorerUrl`: `<home>/tx/<hash>`,
 * the path Etherscan-like explorers and Solana's explorer share, keeping the home's query.
 * Null without an explorer, or for a home that is not a URL.
 */
export function explorerTxUrl(explorerUrl: string | null, hash: string): string | null {
  if (!explorerUrl) return null;
  let url: URL;
  try {
    url = new URL(explorerUrl);
  } catch {
    return null;
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/tx/${encodeURIComponent(hash)}`;
  return url.toString();
}
