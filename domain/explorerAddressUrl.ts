import { explorerPage } from "./explorerPage.ts";

/** The page of `address` on the explorer whose home is `explorerUrl` (`<home>/address/<address>`); null without one. */
export const explorerAddressUrl = (explorerUrl: string | null, address: string): string | null => explorerPage(explorerUrl, "address", address);
