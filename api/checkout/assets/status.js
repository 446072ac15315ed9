/*
 * What the checkout page says about a payment, as pure functions of its public view
 * (GET /api/v1/payments/public/{id}). The server renders the first paint with them and
 * the browser re-renders with them on every update, so both always say the same.
 * Amounts stay decimal strings: no money ever passes through a JavaScript number.
 */

/** Fills `{name}` placeholders of a message. */
export function format(template, values) {
  return template.replace(/\{(\w+)\}/g, (match, key) => (values[key] === undefined || values[key] === null ? match : String(values[key])));
}

/** A decimal amount string written the way the page's language writes numbers, exactly. */
export function formatAmount(amount, locale) {
  try {
    // Given a string, Intl formats the exact decimal (no float rounding).
    return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 20 }).format(amount);
  } catch {
    return amount;
  }
}

const isZero = (amount) => /^0*(\.0*)?$/.test(amount ?? "0");

/** Whether decimal string `a` is below `b`, exactly (as integers scaled to the longer fraction). */
function isBelow(a, b) {
  const [ai, af = ""] = a.split(".");
  const [bi, bf = ""] = b.split(".");
  const scale = Math.max(af.length, bf.length);
  return BigInt(ai + af.padEnd(scale, "0")) < BigInt(bi + bf.padEnd(scale, "0"));
}

/** Owed back, but less than this service refunds (a network fee would cost more): the merchant returns it, not a form. */
const owedBelowMinimum = (view) => !isZero(view.excessOwed) && Boolean(view.refundMinimum) && isBelow(view.excessOwed, view.refundMinimum);

/**
 * What the customer sends now, and where: the payment's own token, network and address;
 * for a cross-chain payment, the origin token and amount to the bridge's deposit address.
 */
export function payingOf(view) {
  const x = view.crossChain;
  if (x) return { amount: x.amountToSend, token: x.token, network: x.networkName ?? x.network ?? x.chainId, address: x.depositAddress, logo: x.network, decimals: x.decimals };
  return { amount: view.amountRemaining, token: view.token, network: view.networkName ?? view.network, address: view.receiveAddress, logo: view.network, decimals: view.decimals };
}

/** A pending cross-chain payment's phase from its bridge: money seen on the origin chain is on its way, or coming back. */
function bridgePhase(view) {
  switch (view.crossChain?.bridgeStatus) {
    case "deposit_detected":
    case "bridging":
    case "completed":
      return "bridging";
    case "refunding":
    case "refunded":
    case "failed":
      return "refunding";
    default:
      return null;
  }
}

/**
 * The phase the page shows: waiting, partial, confirming, completed, overpaid,
 * expiring (time is up but the server has not said so yet), expired or closed; a
 * cross-chain payment also bridging (its deposit is on its way) or refunding (the bridge
 * is returning it), and refunded once closed that way.
 */
export function phaseOf(view, now) {
  switch (view.status) {
    case "pending": {
      const bridging = bridgePhase(view);
      if (bridging) return bridging;
      if (Date.parse(view.expiresAt) <= now) return "expiring";
      return isZero(view.amountReceived) ? "waiting" : "partial";
    }
    case "confirming":
      return "confirming";
    case "completed":
      return isZero(view.excessOwed) ? "completed" : "overpaid";
    case "expired":
      return bridgePhase(view) === "refunding" ? "refunding" : "expired";
    default:
      // A bridge that failed (or is returning the deposit) ended the payment: the money is coming back, nobody cancelled it.
      if (view.crossChain?.bridgeStatus === "refunded") return "refunded";
      return bridgePhase(view) === "refunding" ? "refunding" : "closed";
  }
}

/** Phases whose message is the same whatever the payment: their tone and the key of their title and detail in the strings. */
const PLAIN_PHASES = {
  partial: ["info", "partial"],
  confirming: ["progress", "confirming"],
  completed: ["success", "completed"],
  expiring: ["progress", "expiring"],
  bridging: ["progress", "bridging"],
  refunding: ["warning", "bridgeRefunding"],
  refunded: ["warning", "bridgeRefunded"],
};

/** The status box: its tone (info, progress, success, warning), title and detail, in the page's language. */
export function describeStatus(view, t, locale, now) {
  const phase = phaseOf(view, now);
  const amount = (a) => formatAmount(a, locale);
  const values = {
    amount: amount(view.amount),
    received: amount(view.amountReceived ?? "0"),
    remaining: amount(view.amountRemaining ?? "0"),
    excess: amount(view.excessOwed ?? "0"),
    token: view.token,
    network: view.networkName ?? view.network,
    merchant: view.merchantName,
    confirmations: view.confirmations,
    required: view.requiredConfirmations,
  };
  const paying = payingOf(view);
  Object.assign(values, { originAmount: amount(paying.amount), originToken: paying.token, originNetwork: paying.network });
  const owed = !isZero(view.excessOwed);
  const small = owedBelowMinimum(view);
  // What is owed back is the merchant's to return: paid straight to them, or delivered to them by a bridge.
  const merchantHolds = view.directToMerchant || Boolean(view.crossChain);
  const say = (tone, title, detail) => ({ phase, tone, title: format(title, values), detail: format(detail, values) });
  const plain = PLAIN_PHASES[phase];
  if (plain) return say(plain[0], t[`${plain[1]}Title`], t[`${plain[1]}Detail`]);
  switch (phase) {
    case "waiting":
      if (view.crossChain) return say("info", t.waitingTitle, view.wallet ? t.waitingDetailBridge : t.waitingDetailBridgeAddress);
      return say("info", t.waitingTitle, view.directToMerchant ? t.waitingDetailUri : view.wallet ? t.waitingDetail : t.waitingDetailAddress);
    case "overpaid":
      return say("success", t.overpaidTitle, merchantHolds ? t.overpaidMerchantDetail : small ? t.overpaidSmallDetail : t.overpaidDetail);
    case "expired":
      if (view.crossChain) return say("warning", t.expiredTitle, t.expiredBridgeDetail);
      if (owed) return say("warning", t.expiredTitle, view.directToMerchant ? t.expiredOwedMerchantDetail : small ? t.expiredSmallDetail : t.expiredOwedDetail);
      return say("warning", t.expiredTitle, isZero(view.amountReceived) ? t.expiredDetail : t.expiredReturnedDetail);
    default:
      return say("warning", t.closedTitle, owed ? (merchantHolds ? t.closedOwedMerchantDetail : small ? t.closedSmallDetail : t.closedOwedDetail) : t.closedDetail);
  }
}

/** Which parts of the page are shown for a view. */
export function sectionsOf(view, now) {
  const phase = phaseOf(view, now);
  const paying = phase === "waiting" || phase === "partial";
  return {
    pay: paying,
    // A transfer typed in by hand pays only where the address is the payment's own (not Solana Pay's merchant wallet).
    manual: paying && !view.directToMerchant,
    countdown: paying,
    progress: phase === "confirming",
    // The payment's chain is lagging or down: what is sent (or sent already) shows once it catches up.
    delayed: Boolean(view.networkDelayed) && ["waiting", "partial", "confirming", "expiring"].includes(phase),
    // The service returns what it holds; a bridge returns a cross-chain customer's money itself.
    refund:
      !isZero(view.excessOwed) && !owedBelowMinimum(view) && Boolean(view.receiveAddress) && !view.directToMerchant && !view.crossChain && phase !== "confirming" && !paying,
    transaction: (phase === "completed" || phase === "overpaid") && Boolean(view.transactionHash),
    success: (phase === "completed" || phase === "overpaid") && Boolean(view.successUrl),
    cancel: (paying || phase === "expiring" || phase === "expired" || phase === "closed" || phase === "refunded") && Boolean(view.cancelUrl),
  };
}

/** One line per refund of the payment, in the page's language. */
export function refundLines(view, t, locale) {
  return (view.refunds ?? []).map((refund) => {
    const template = refund.status === "confirmed" ? t.refundStatusSent : refund.status === "failed" ? t.refundStatusFailed : t.refundStatusPending;
    return format(template, { amount: formatAmount(refund.amount, locale), token: view.token });
  });
}

/** Minutes and seconds left ("14:05"), and the ISO 8601 duration for `<time datetime>`. */
export function timeLeft(expiresAt, now) {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return { text: `${minutes}:${String(rest).padStart(2, "0")}`, duration: `PT${minutes}M${rest}S`, seconds };
}
