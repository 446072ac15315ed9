import { format } from "./assets/status.js";
import { LANGUAGES, type Language } from "./messages/index.ts";

/** Text for HTML content and attribute values (quotes included). */
export const escapeHtml = (value: string | number): string => Bun.escapeHTML(String(value));

/** JSON inside `<script type="application/json">`: nothing in it can close the element or start markup. */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");

/** The language switcher: links to the same page in each language (`?lang=`), the current one marked. */
function languageNav(language: Language): string {
  const items = LANGUAGES.map((l) =>
    l.code === language.code
      ? `<li><a href="?lang=${l.code}" hreflang="${l.code}" lang="${l.code}" aria-current="true">${escapeHtml(l.name)}</a></li>`
      : `<li><a href="?lang=${l.code}" hreflang="${l.code}" lang="${l.code}">${escapeHtml(l.name)}</a></li>`,
  ).join("");
  return `<nav class="languages" aria-label="${escapeHtml(language.messages.languageLabel)}"><ul>${items}</ul></nav>`;
}

/**
 * A whole checkout document: head (the stylesheet and the one module script, both
 * from the service itself), the language switcher and `body`. `data` is handed to the
 * script as a JSON data block, which the Content-Security-Policy does not treat as a script.
 */
export function pageShell(options: { language: Language; title: string; assets: string; body: string; data?: unknown }): string {
  const { language, assets } = options;
  return `<!doctype html>
<html lang="${language.code}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="${assets}/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${assets}/checkout.css">
<link rel="stylesheet" href="${assets}/controls.css">
${options.data === undefined ? "" : `<script type="module" src="${assets}/checkout.js"></script>`}
</head>
<body>
<div class="page">
${languageNav(language)}
${options.body}
</div>
${options.data === undefined ? "" : `<script type="application/json" id="checkout-data">${jsonForScript(options.data)}</script>`}
</body>
</html>
`;
}

/** The page for a link that leads to no payment. */
export function renderNotFoundPage(language: Language, assets: string): string {
  const t = language.messages;
  return pageShell({
    language,
    assets,
    title: t.notFoundTitle,
    body: `<main class="card" id="main"><section class="status tone-warning"><h1>${escapeHtml(t.notFoundTitle)}</h1><p>${escapeHtml(format(t.notFoundDetail, {}))}</p></section></main>`,
  });
}
