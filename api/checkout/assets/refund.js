/*
 * The refund part of the page, sent to POST {apiBase}/payments/public/{id}/refund-request
 * (no credentials: the payment id is the key). "Send it back to the address I paid from"
 * asks with no address: the service sends it to the paying address. Another address is
 * recorded and waits for the merchant's approval, unless the customer signs the request
 * with the wallet that paid (refundSign.js), which sends it at once. Errors are said in
 * the page's language and tied to the field.
 */
import { refundMessage } from "./refundMessage.js";
import { signerFor, signRefundMessage } from "./refundSign.js";
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
    case "refund_address_required":
      return t.refundAddressRequired;
    case "too_many_refund_requests":
      return format(t.refundTooMany, merchant);
    case "refund_signature_invalid":
      return format(t.refundSignatureInvalid, merchant);
    default:
      return t.refundFailed;
  }
}

/** The text the wallet that paid signs for `request` (a request awaiting approval, as the service answered it). */
export const messageFor = (view, request) =>
  refundMessage({ paymentId: view.id, to: request.to, amount: request.amount, token: view.token, network: view.networkName ?? view.network, chainId: view.chainId });

export function setUpRefund({ t, locale, apiBase, getView, onRequested }) {
  const form = document.getElementById("refund-form");
  const input = document.getElementById("refund-address");
  const message = document.getElementById("refund-message");
  const toPayer = document.getElementById("refund-to-payer");
  const sign = document.getElementById("refund-sign");
  if (!form || !input || !message) return;
  /** The request awaiting approval the sign button signs for. */
  let awaiting = null;
  const say = (text, isError) => {
    message.textContent = text;
    message.classList.toggle("error", Boolean(isError));
  };
  const buttons = () => [form.querySelector("button[type=submit]"), toPayer, sign].filter(Boolean);
  const busy = (on) => buttons().forEach((b) => (b.disabled = on));

  /** Posts `body`; says what came of it. Returns the answer's body, or null when it failed. */
  async function ask(body, view) {
    const network = view.networkName ?? view.network;
    busy(true);
    say(t.refundSending, false);
    try {
      const response = await fetch(`${apiBase}/payments/public/${encodeURIComponent(view.id)}/refund-request`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(() => ({}));
      if (response.status === 202 && answer.refund) {
        input.removeAttribute("aria-invalid");
        input.value = "";
        awaiting = null;
        if (sign) sign.hidden = true;
        say(format(t.refundRequested, { amount: formatAmount(answer.refund.amount, locale), token: view.token, address: answer.refund.to }), false);
        onRequested();
        return answer;
      }
      if (response.status === 202 && answer.refundRequest) {
        input.removeAttribute("aria-invalid");
        awaiting = answer.refundRequest;
        const wallet = signerFor(view.refundSigner);
        if (sign) sign.hidden = !wallet;
        const recorded = format(t.refundAwaiting, { amount: formatAmount(awaiting.amount, locale), token: view.token, address: awaiting.to, merchant: view.merchantName });
        say(wallet ? `${recorded} ${t.refundSignOffer}` : recorded, false);
        return answer;
      }
      if (response.status === 400 && body.signature === undefined) {
        input.setAttribute("aria-invalid", "true");
        say(format(t.refundInvalidAddress, { network }), true);
        input.focus();
        return null;
      }
      say(refusalOf(t, answer.error, view), true);
    } catch {
      say(t.refundFailed, true);
    } finally {
      busy(false);
    }
    return null;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const view = getView();
    const address = input.value.trim();
    if (!address) {
      input.setAttribute("aria-invalid", "true");
      say(format(t.refundInvalidAddress, { network: view.networkName ?? view.network }), true);
      input.focus();
      return;
    }
    await ask({ address }, view);
  });

  toPayer?.addEventListener("click", () => ask({}, getView()));

  sign?.addEventListener("click", async () => {
    const view = getView();
    const request = awaiting;
    const wallet = signerFor(view.refundSigner);
    if (!request || !wallet) return;
    busy(true);
    say(t.refundSigning, false);
    let signature;
    try {
      signature = await signRefundMessage(view.refundSigner, wallet, messageFor(view, request));
    } catch (error) {
      busy(false);
      const declined = error?.code === 4001 || /reject|denied|declined|cancel/i.test(String(error?.message ?? ""));
      say(declined ? t.errorRejected : format(t.errorWallet, { message: String(error?.message ?? error).split("\n")[0].slice(0, 200) }), true);
      return;
    }
    await ask({ address: request.to, amount: request.amount, signature }, view);
  });
}
