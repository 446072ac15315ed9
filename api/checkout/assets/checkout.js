/*
 * The checkout page's script: re-renders the server-rendered page from each new view
 * of the payment (live.js), counts down to expiry, copies the address and amount, and
 * wires the wallet button (wallet.js) and the refund form (refund.js). The words and
 * the status logic are the server's (status.js and the catalogue in #checkout-data).
 */
import { followPayment } from "./live.js";
import { setUpRefund } from "./refund.js";
import { describeStatus, format, formatAmount, payingOf, refundLines, sectionsOf, timeLeft } from "./status.js";
import { setUpWallet } from "./wallet.js";

const data = JSON.parse(document.getElementById("checkout-data").textContent);
const t = data.messages;
const locale = data.lang;
// The server's clock decides expiry: count down against it, not the device's.
const clockOffset = data.serverNow - Date.now();
const now = () => Date.now() + clockOffset;
let view = data.payment;

const byId = (id) => document.getElementById(id);
const show = (id, visible) => {
  const element = byId(id);
  if (element && element.hidden === visible) element.hidden = !visible;
};
const setText = (id, text) => {
  const element = byId(id);
  if (element && element.textContent !== text) element.textContent = text;
};

const wallet = setUpWallet({ t, locale, getView: () => view });

function render() {
  const at = now();
  const status = describeStatus(view, t, locale, at);
  const sections = sectionsOf(view, at);
  const network = view.networkName ?? view.network;
  const values = { merchant: view.merchantName, token: view.token, network };

  byId("status").className = `status tone-${status.tone}`;
  setText("status-title", status.title);
  setText("status-detail", status.detail);
  document.body.dataset.phase = status.phase;

  show("progress-box", sections.progress);
  const progress = byId("status-progress");
  const required = view.requiredConfirmations ?? 1;
  const confirmations = Math.min(view.confirmations, required);
  if (Number(progress.max) !== required) progress.max = required;
  if (Number(progress.value) !== confirmations) progress.value = confirmations;
  setText("status-progress", `${confirmations} / ${required}`);

  show("network-delayed", sections.delayed);
  setText("network-delayed-detail", format(t.networkDelayedDetail, values));

  show("pay", sections.pay);
  show("manual", sections.manual);
  show("countdown", sections.countdown);
  if (sections.pay) {
    const paying = payingOf(view);
    const due = byId("amount-due");
    if (due.dataset.value !== paying.amount) {
      due.dataset.value = paying.amount;
      due.textContent = formatAmount(paying.amount, locale);
    }
    // The QR code asks for what is due now (the image is drawn by the server).
    const qr = byId("qr");
    const src = `${data.basePath ?? ""}/pay/${encodeURIComponent(view.id)}/qr.svg?due=${encodeURIComponent(view.amountRemaining)}`;
    const link = byId("open-wallet");
    if (view.remainingPaymentUri && link.getAttribute("href") !== view.remainingPaymentUri) link.href = view.remainingPaymentUri;
    if (qr.getAttribute("src") !== src) {
      qr.src = src;
      qr.alt = format(t.qrAlt, { ...values, token: paying.token, network: paying.network, amount: formatAmount(paying.amount, locale) });
    }
  }
  wallet.update(view, sections.pay);

  show("refund", sections.refund);
  const lines = refundLines(view, t, locale);
  const list = byId("refund-list");
  if (list.dataset.lines !== JSON.stringify(lines)) {
    list.dataset.lines = JSON.stringify(lines);
    list.replaceChildren(...lines.map((line) => Object.assign(document.createElement("li"), { textContent: line })));
  }
  show("refund-list", lines.length > 0);

  show("transaction", sections.transaction);
  setText("tx-hash", view.transactionHash ?? "");
  show("success-link", sections.success);
  show("cancel-link", sections.cancel);
  setText("cancel-link", format(sections.pay ? t.cancelAndReturn : t.returnToMerchant, values));
  tick();
}

function tick() {
  const left = timeLeft(view.expiresAt, now());
  const time = byId("countdown-time");
  if (time.textContent !== left.text) {
    time.textContent = left.text;
    time.dateTime = left.duration;
  }
}

// The phase can change with time alone (expiring): re-render when it does.
let lastPhase = null;
setInterval(() => {
  tick();
  const phase = describeStatus(view, t, locale, now()).phase;
  if (phase !== lastPhase) {
    lastPhase = phase;
    render();
  }
}, 1000);

for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const source = byId(button.dataset.copy);
    const text = source.dataset.value ?? source.textContent;
    try {
      await navigator.clipboard.writeText(text);
      setText("copy-message", t.copied);
    } catch {
      window.getSelection()?.selectAllChildren(source);
      setText("copy-message", t.copyFailed);
    }
  });
}

const live = followPayment({
  apiBase: data.apiBase,
  paymentId: view.id,
  onView: (next) => {
    view = next;
    render();
  },
});
setUpRefund({ t, locale, apiBase: data.apiBase, getView: () => view, onRequested: () => void live.refresh() });
render();
