// A payment's page follows the change stream the checkout page follows
// (GET /api/v1/payments/public/{id}/events): each change makes htmx fetch the page's live part
// again at once. The page's own periodic refresh stays as the fallback while the stream is down.
const live = document.getElementById("payment-live");
if (live && live.dataset.stream && typeof EventSource === "function" && typeof htmx === "object") {
  const source = new EventSource(live.dataset.stream);
  source.addEventListener("payment", () => htmx.trigger(document.body, "payment-changed"));
}
