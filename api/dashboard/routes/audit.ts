import { Elysia } from "elysia";
import { recentAudit } from "../../../db/dashboardAudit.ts";
import type { ApiDeps } from "../../deps.ts";
import { dashboardGuard } from "../guard.ts";
import { html } from "../html.ts";
import { page } from "../layout.ts";
import { htmlPage } from "../respond.ts";

/** The account's audit log: who did what, when and from where (the latest 100). */
export const dashboardAuditRoutes = (deps: ApiDeps, assets: string) =>
  new Elysia().use(dashboardGuard(deps, assets)).get(
    "/audit",
    async ({ dash }) => {
      const rows = await recentAudit(deps.db, dash.merchantId, 100);
      const body = html`<table>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Details</th><th scope="col">From</th></tr></thead>
<tbody>${rows.map(
        ({ entry, email }) => html`<tr><td>${entry.createdAt.toISOString().replace("T", " ").slice(0, 19)}</td><td>${email ?? "—"}</td><td>${entry.action}</td><td><code>${JSON.stringify(entry.details)}</code></td><td>${entry.ip ?? "—"}</td></tr>`,
      )}</tbody>
</table>`;
      return htmlPage(page(dash.page, { title: "Audit log", active: "audit", body }));
    },
    { dashboard: "read" },
  );
