import type { Mode } from "../../domain/mode.ts";
import { html, type Html } from "./html.ts";

/** What every signed-in page shows: who, which merchant, which mode, and the CSRF token its forms carry. */
export type PageContext = { email: string; role: string; merchantName: string; mode: Mode; csrfToken: string; assets: string };

const NAV = [
  { href: "/dashboard/overview", label: "Overview", key: "overview" },
  { href: "/dashboard/payments", label: "Payments", key: "payments" },
  { href: "/dashboard/refund-requests", label: "Refund requests", key: "refunds" },
  { href: "/dashboard/wallets", label: "Settlement wallets", key: "wallets" },
  { href: "/dashboard/keys", label: "API keys", key: "keys" },
  { href: "/dashboard/webhooks", label: "Webhooks", key: "webhooks" },
  { href: "/dashboard/settings", label: "Settings", key: "settings" },
  { href: "/dashboard/team", label: "Team", key: "team" },
  { href: "/dashboard/audit", label: "Audit log", key: "audit" },
  { href: "/dashboard/account", label: "Your account", key: "account" },
] as const;

export type NavKey = (typeof NAV)[number]["key"];

/** A form's hidden CSRF field: every state-changing form carries it. */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;

function head(title: string, assets: string, extra: Html | null = null): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'>
<title>${title} · Dashboard</title>
<link rel="icon" href="${assets}/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assets}/dashboard.css">
<script src="${assets}/htmx.min.js" defer></script>
${extra}
</head>`;
}

/** A signed-in page: skip link, header with the test/live switch (always visible), navigation, the test banner, `body`. */
export function page(ctx: PageContext, options: { title: string; active?: NavKey; body: Html; head?: Html }): string {
  const other: Mode = ctx.mode === "test" ? "live" : "test";
  return `<!doctype html>\n${html`<html lang="en">
${head(options.title, ctx.assets, options.head ?? null)}
<body hx-headers='${JSON.stringify({ "X-CSRF-Token": ctx.csrfToken })}'>
<a class="skip" href="#main">Skip to content</a>
${ctx.mode === "test" ? html`<div class="banner" role="status">Test mode: you are looking at test data. Nothing here moves real money.</div>` : null}
<header class="top">
  <span class="brand">${ctx.merchantName}</span>
  <form method="post" action="/dashboard/mode" class="mode">
    ${csrfField(ctx.csrfToken)}<input type="hidden" name="mode" value="${other}">
    <span>Mode: <strong>${ctx.mode}</strong></span>
    <button type="submit">Switch to ${other}</button>
  </form>
  <span class="who">${ctx.email} (${ctx.role})</span>
  <form method="post" action="/dashboard/sign-out">${csrfField(ctx.csrfToken)}<button type="submit">Sign out</button></form>
</header>
<nav aria-label="Dashboard"><ul>${NAV.map(
    (n) => html`<li><a href="${n.href}"${n.key === options.active ? html` aria-current="page"` : null}>${n.label}</a></li>`,
  )}</ul></nav>
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>`}\n`;
}

/** A page for someone not signed in (sign-in, invitation, errors). */
export function plainPage(assets: string, options: { title: string; body: Html }): string {
  return `<!doctype html>\n${html`<html lang="en">
${head(options.title, assets)}
<body>
<main id="main" class="narrow">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>`}\n`;
}
