import { explorerPage } from "./explorerPage.ts";

/** The page of transaction `hash` on the explorer whose home is `explorerUrl` (`<home>/tx/<hash>`); null without one. */
export const explorerTxUrl = (explorerUrl: string | null, hash: string): string | null => explorerPage(explorerUrl, "tx", hash);
