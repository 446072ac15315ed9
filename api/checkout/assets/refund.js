/*
 * The refund form: the customer's address for what the payment owes them, sent to
 * POST {apiBase}/payments/public/{id}/refund-request (no credentials: the payment id is
 * the key). Errors are said in the page's language and tied to the field.
 */
import { format, formatAmount } from "./status.js";

/** What the page says to a refused refund request (its `error` code): a refusal that will not change says so, not "try again". */
export function refusalOf(t, error, view) {
  const merchant = { merchant: view.merchantName };
  switch (error) {
    case "nothing_to_refund":
      return t.refundNothing;
    case "refund_in_progress":
      return t.refundInProgress;
    case "refund_below_minimum":
      return format(t.refundBelowMinimum, merchant);
    case "refund_not_held":
      return format(t.refundNotHeld, merchant);
    case "refund_reverting":
      return format(t.refundReverting, merchant);
    default:
      return t.refundFailed;
  }
}

export function setUpRefund({ t, locale, apiBase, getView, onRequested }) {
  const form = document.getElementById("refund-form");
  const input = document.getElementById("refund-address");
  const message = document.getElementById("refund-message");
  if (!form || !input || !message) return;
  const say = (text, isError) => {
    message.textContent = text;
    message.classList.toggle("error", Boolean(isError));
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const view = getView();
    const network = view.networkName ?? view.network;
    const address = input.value.trim();
    if (!address) {
      input.setAttribute("aria-invalid", "true");
      say(format(t.refundInvalidAddress, { network }), true);
      input.focus();
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    say(t.refundSending, false);
    try {
      const response = await fetch(`${apiBase}/payments/public/${encodeURIComponent(view.id)}/refund-request`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ address }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.status === 202) {
        input.removeAttribute("aria-invalid");
        input.value = "";
        say(format(t.refundRequested, { amount: formatAmount(body.refund.amount, locale), token: view.token, address: body.refund.to }), false);
        onRequested();
        return;
      }
      if (response.status === 400) {
        input.setAttribute("aria-invalid", "true");
        say(format(t.refundInvalidAddress, { network }), true);
        input.focus();
        return;
      }
      say(refusalOf(t, body.error, view), true);
    } catch {
      say(t.refundFailed, true);
    } finally {
      button.disabled = false;
    }
  });
}
