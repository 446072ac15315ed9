import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fromProjectRoot } from "../../config/projectRoot.ts";

/** The dashboard's static files, all from this service (no CDN: it runs offline), by name: path in the project and type. */
const FILES: Record<string, { path: string; type: string }> = {
  "dashboard.css": { path: "api/dashboard/assets/dashboard.css", type: "text/css; charset=utf-8" },
  "htmx.min.js": { path: "node_modules/htmx.org/dist/htmx.min.js", type: "text/javascript; charset=utf-8" },
  "uPlot.iife.min.js": { path: "node_modules/uplot/dist/uPlot.iife.min.js", type: "text/javascript; charset=utf-8" },
  "uPlot.min.css": { path: "node_modules/uplot/dist/uPlot.min.css", type: "text/css; charset=utf-8" },
  "live.js": { path: "api/dashboard/assets/live.js", type: "text/javascript; charset=utf-8" },
  "overview.js": { path: "api/dashboard/assets/overview.js", type: "text/javascript; charset=utf-8" },
  // The checkout page's icon: one file, two users.
  "icon.svg": { path: "api/checkout/assets/icon.svg", type: "image/svg+xml" },
};

/** The files read once, served under a version (a hash of them all) so they can be cached for a year. */
export function loadDashboardAssets() {
  const files = new Map<string, { body: string; type: string }>();
  const hash = createHash("sha256");
  for (const [name, file] of Object.entries(FILES)) {
    const body = readFileSync(fromProjectRoot(file.path), "utf8");
    hash.update(name).update("\0").update(body).update("\0");
    files.set(name, { body, type: file.type });
  }
  const version = hash.digest("hex").slice(0, 16);
  return {
    base: `/dashboard/assets/${version}`,
    get: (requested: string, name: string) => (requested === version ? files.get(name) : undefined),
  };
}
