/**
 * A page on a block explorer whose home is `explorerUrl`: `<home>/<segment>/<id>`, the paths
 * Etherscan-like explorers and Solana's explorer share, keeping the home's query
 * (`?cluster=devnet`). Null without an explorer, or for a home that is not a URL.
 */
export function explorerPage(explorerUrl: string | null, segment: "address" | "tx", id: string): string | null {
  if (!explorerUrl) return null;
  let url: URL;
  try {
    url = new URL(explorerUrl);
  } catch {
    return null;
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${segment}/${encodeURIComponent(id)}`;
  return url.toString();
}
