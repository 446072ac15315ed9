import type { PublicPaymentView } from "../presenters/publicPayment.ts";
import { describeStatus, format, formatAmount, payingOf, refundLines, sectionsOf, timeLeft } from "./assets/status.js";
import type { Language } from "./messages/index.ts";
import { escapeHtml as h, pageShell } from "./pageShell.ts";

const hidden = (visible: boolean) => (visible ? "" : " hidden");

/**
 * The QR image of what is due now; `due` changes the address when the amount left
 * changes, so a cached image is never stale. (Loaded only while the payment is open:
 * after that the image answers 404.)
 */
/** The QR image of what is due now; `basePath`: PUBLIC_BASE_URL's path, where a proxy serves this service. */
const qrPath = (view: PublicPaymentView, basePath: string) => `${basePath}/pay/${view.id}/qr.svg?due=${encodeURIComponent(view.amountRemaining)}`;

/**
 * The hosted checkout page of a payment, rendered in full on the server (the first
 * paint needs no script), from the same view and the same status logic
 * (`assets/status.js`) the page's script re-renders with on every update.
 */
export function renderCheckoutPage(options: { view: PublicPaymentView; language: Language; assets: string; apiBase: string; basePath: string; now: number }): string {
  const { view, language, assets, now } = options;
  const t = language.messages;
  const locale = language.code;
  const network = view.networkName ?? view.network ?? view.chainId;
  const values = { merchant: view.merchantName, token: view.token, network, currency: view.fiatCurrency ?? "" };
  // What the customer sends, where: the payment's own, or a cross-chain payment's origin.
  const paying = payingOf(view);
  const payValues = { ...values, token: paying.token, network: paying.network ?? network };
  const status = describeStatus(view, t, locale, now);
  const sections = sectionsOf(view, now);
  const left = timeLeft(view.expiresAt, now);
  const amount = formatAmount(view.crossChain ? paying.amount : view.amount, locale);
  const due = formatAmount(paying.amount, locale);
  const refunds = refundLines(view, t, locale);
  const confirmations = Math.min(view.confirmations, view.requiredConfirmations ?? view.confirmations);

  const body = `<header class="top">
  <h1 id="heading">${h(format(t.heading, values))}</h1>
  ${view.isTest ? `<p class="badge">${h(t.testBadge)}</p>` : ""}
</header>
<main class="card" id="main">
  <section class="summary" aria-labelledby="amount-label">
    <p id="amount-label" class="label">${h(t.amountLabel)}</p>
    <p class="amount"><span id="amount">${h(amount)}</span> <span class="token">${h(paying.token)}</span></p>
    ${view.fiatAmount && view.fiatCurrency ? `<p class="fiat">${h(format(t.fiatPrice, { ...values, amount: formatAmount(view.fiatAmount, locale) }))}</p>` : ""}
    <p class="network">${paying.logo ? `<img src="${h(options.basePath)}/api/static/networks/${h(paying.logo)}.svg" alt="" width="28" height="28">` : ""}<span><span class="visually-hidden">${h(t.networkLabel)}: </span>${h(format(t.tokenOnNetwork, payValues))}</span></p>
    ${view.crossChain ? `<p class="fiat" id="bridge-receives">${h(format(t.bridgeReceives, { ...values, amount: formatAmount(view.amount, locale), originNetwork: paying.network }))}</p>` : ""}
  </section>

  <section id="status" class="status tone-${status.tone}" aria-labelledby="status-label">
    <h2 id="status-label" class="visually-hidden">${h(t.statusLabel)}</h2>
    <div role="status" aria-live="polite" aria-atomic="true">
      <p id="status-title" class="status-title">${h(status.title)}</p>
      <p id="status-detail">${h(status.detail)}</p>
    </div>
    <div id="progress-box" class="progress"${hidden(sections.progress)}>
      <label for="status-progress">${h(t.confirmationsLabel)}</label>
      <progress id="status-progress" max="${view.requiredConfirmations ?? 1}" value="${confirmations}">${confirmations} / ${view.requiredConfirmations ?? "?"}</progress>
    </div>
    <div id="network-delayed" class="delayed" role="status"${hidden(sections.delayed)}>
      <p class="delayed-title">${h(t.networkDelayedTitle)}</p>
      <p id="network-delayed-detail">${h(format(t.networkDelayedDetail, values))}</p>
    </div>
    <p id="countdown" class="countdown"${hidden(sections.countdown)}>${h(t.timeLeft)} <time id="countdown-time" datetime="${left.duration}">${left.text}</time></p>
  </section>

  <section id="pay" class="pay" aria-labelledby="pay-title"${hidden(sections.pay)}>
    <h2 id="pay-title">${h(t.payTitle)}</h2>
    <figure class="qr">
      <img id="qr"${sections.pay ? ` src="${h(qrPath(view, options.basePath))}"` : ""} alt="${h(format(t.qrAlt, { ...payValues, amount: due }))}" width="240" height="240">
      <figcaption>${h(t.qrCaption)}</figcaption>
    </figure>
    <div class="fields">
      <div class="wallet">
        <button type="button" id="wallet-pay" class="primary" hidden>${h(t.walletButton)}</button>
        <p id="wallet-message" class="wallet-message" role="status" aria-live="polite"></p>
        <p id="wallet-error" class="error" role="alert"></p>
        <a id="open-wallet" class="button secondary" href="${h(view.remainingPaymentUri ?? "#")}">${h(t.openInWallet)}</a>
        <p id="wallet-none" class="hint" hidden>${h(t.walletNone)}</p>
      </div>
      <div id="manual" class="manual"${hidden(sections.manual)}>
      <div class="field">
        <p class="label" id="address-label">${h(format(t.addressLabel, payValues))}</p>
        <p class="value"><code id="address" aria-labelledby="address-label">${h(paying.address ?? "")}</code></p>
        <button type="button" class="secondary" data-copy="address" aria-describedby="address-label">${h(t.copyAddress)}</button>
      </div>
      <div class="field">
        <p class="label" id="amount-due-label">${h(t.amountDueLabel)}</p>
        <p class="value"><code id="amount-due" data-value="${h(paying.amount)}" aria-labelledby="amount-due-label">${h(due)}</code> <span class="token">${h(paying.token)}</span></p>
        <button type="button" class="secondary" data-copy="amount-due" aria-describedby="amount-due-label">${h(t.copyAmount)}</button>
      </div>
      <p id="copy-message" class="copy-message" role="status" aria-live="polite"></p>
      </div>
      <p class="note">${h(format(view.directToMerchant ? t.onlyWalletApp : t.onlyToken, payValues))}</p>
    </div>
  </section>

  <section id="refund" class="refund" aria-labelledby="refund-title"${hidden(sections.refund)}>
    <h2 id="refund-title">${h(t.refundTitle)}</h2>
    <p id="refund-explain" class="hint">${h(format(t.refundExplain, values))}</p>
    <p class="refund-payer"><button type="button" id="refund-to-payer" class="primary" aria-describedby="refund-explain refund-message">${h(t.refundToPayer)}</button></p>
    <form id="refund-form" novalidate aria-labelledby="refund-other">
      <p id="refund-other" class="label">${h(t.refundOtherAddress)}</p>
      <label for="refund-address">${h(format(t.refundAddressLabel, values))}</label>
      <input id="refund-address" name="address" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="refund-hint refund-message">
      <p id="refund-hint" class="hint">${h(format(t.refundAddressHint, values))}</p>
      <button type="submit" class="secondary">${h(t.refundSubmit)}</button>
    </form>
    <p class="refund-sign"><button type="button" id="refund-sign" class="primary" hidden>${h(t.refundSignButton)}</button></p>
  </section>
  <p id="refund-message" class="refund-message" role="status" aria-live="polite"></p>
  <ul id="refund-list" class="refunds"${hidden(refunds.length > 0)}>${refunds.map((line) => `<li>${h(line)}</li>`).join("")}</ul>

  <p id="transaction" class="transaction"${hidden(sections.transaction)}>${h(t.transactionLabel)}: <code id="tx-hash">${h(view.transactionHash ?? "")}</code></p>

  <p class="actions">
    <a id="success-link" class="button primary" href="${h(view.successUrl ?? "#")}"${hidden(sections.success)}>${h(format(t.returnToMerchant, values))}</a>
    <a id="cancel-link" class="button link" href="${h(view.cancelUrl ?? "#")}"${hidden(sections.cancel)}>${h(format(sections.pay ? t.cancelAndReturn : t.returnToMerchant, values))}</a>
  </p>
  <p class="live-hint">${h(t.liveHint)}</p>
</main>`;

  return pageShell({
    language,
    assets,
    title: format(t.pageTitle, values),
    body,
    data: { payment: view, messages: t, lang: locale, serverNow: now, apiBase: options.apiBase, basePath: options.basePath },
  });
}
