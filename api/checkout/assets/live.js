/*
 * Keeps the page's view of the payment current without hammering the service:
 * Server-Sent Events from GET {apiBase}/payments/public/{id}/events push each change;
 * while the stream is down (reconnecting, refused, or EventSource missing) the page
 * polls GET {apiBase}/payments/public/{id} every few seconds instead.
 */

/**
 * Follows a payment; `onView` gets each view the service sends. `fetchImpl` and `eventSource`
 * are the browser's own unless given (`eventSource: null`: none, poll only).
 */
export function followPayment({ apiBase, paymentId, onView, pollMs = 4000, fetchImpl = (...args) => fetch(...args), eventSource = globalThis.EventSource }) {
  const url = `${apiBase}/payments/public/${encodeURIComponent(paymentId)}`;
  let timer = null;
  // A poll answered after the stream has spoken (or polling stopped) is older than what the
  // page shows: dropped, else a slow poll could put "confirming" back over "completed".
  let generation = 0;
  // Polls overlap (one slower than the interval, a refresh beside the timer's): an answer to an
  // older poll than the one last shown is dropped too, else "pending" came back after "confirming".
  let asked = 0;
  let shown = 0;

  async function poll() {
    const at = generation;
    const mine = ++asked;
    try {
      const response = await fetchImpl(url, { cache: "no-store", headers: { accept: "application/json" } });
      if (!response.ok) return;
      const view = (await response.json()).payment;
      if (at === generation && mine > shown) {
        shown = mine;
        onView(view);
      }
    } catch {
      // Offline for a moment: the next poll tries again.
    }
  }
  const startPolling = () => {
    if (timer !== null) return;
    timer = setInterval(poll, pollMs);
    void poll();
  };
  const stopPolling = () => {
    clearInterval(timer);
    timer = null;
    generation++;
  };

  if (typeof eventSource !== "function") {
    startPolling();
    return { refresh: poll };
  }
  const source = new eventSource(`${url}/events`);
  source.addEventListener("payment", (event) => {
    stopPolling();
    onView(JSON.parse(event.data));
  });
  source.addEventListener("open", stopPolling);
  // The browser reconnects by itself (and gives up on an HTTP error): poll meanwhile.
  source.addEventListener("error", startPolling);
  return { refresh: poll };
}
