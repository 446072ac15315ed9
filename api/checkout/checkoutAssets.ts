import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fromProjectRoot } from "../../config/projectRoot.ts";

/** The page's static files and their types: everything it loads comes from this folder (no CDN, no build step). */
const FILES: Record<string, string> = {
  "checkout.css": "text/css; charset=utf-8",
  "controls.css": "text/css; charset=utf-8",
  "checkout.js": "text/javascript; charset=utf-8",
  "status.js": "text/javascript; charset=utf-8",
  "live.js": "text/javascript; charset=utf-8",
  "wallet.js": "text/javascript; charset=utf-8",
  "refund.js": "text/javascript; charset=utf-8",
  // A link to payouts/refundMessage.js, where the server checks signatures against the same text (one copy, never two to drift).
  "refundMessage.js": "text/javascript; charset=utf-8",
  "refundSign.js": "text/javascript; charset=utf-8",
  "icon.svg": "image/svg+xml",
};

export type CheckoutAsset = { body: string; contentType: string };

/**
 * The checkout page's assets, read once. They are served under a version (a hash of
 * them all), so they can be cached for a year: a deployment that changes any of them
 * changes every URL, and the modules' relative imports stay within one version.
 */
export function loadCheckoutAssets(dir = fromProjectRoot("api/checkout/assets")) {
  const files = new Map<string, CheckoutAsset>();
  const hash = createHash("sha256");
  for (const [name, contentType] of Object.entries(FILES)) {
    const body = readFileSync(join(dir, name), "utf8");
    hash.update(name).update("\0").update(body).update("\0");
    files.set(name, { body, contentType });
  }
  const version = hash.digest("hex").slice(0, 16);
  return {
    version,
    /** Where the page links its assets from. */
    base: `/pay/assets/${version}`,
    /** A file of this version; undefined for another version or a name not served. */
    get: (requestedVersion: string, name: string) => (requestedVersion === version ? files.get(name) : undefined),
  };
}

export type CheckoutAssets = ReturnType<typeof loadCheckoutAssets>;
