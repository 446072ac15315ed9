// A payment's page follows the change stream the checkout page follows
// (GET /api/v1/payments/public/{id}/events): each change makes htmx fetch the page's live part
// again at once. The page's own periodic refresh stays as the fallback while the stream is down.
const live = document.getElementById("payment-live");
if (live && live.dataset.stream && typeof EventSource === "function" && typeof htmx === "object") {
  const source = new EventSource(live.dataset.stream);
  source.addEventListener("payment", () => htmx.trigger(document.body, "payment-changed"));
}

// The payments list follows one stream of its open payments' changes (/dashboard/payments/changes,
// fed by the same hub): each change makes htmx fetch the table again, and a table swapped in
// with other open payments opens the stream for those instead.
let listSource = null;
let listStream = null;
function followList() {
  const table = document.getElementById("payments-table");
  const stream = (table && table.dataset.stream) || null;
  if (stream === listStream) return;
  if (listSource) listSource.close();
  listSource = null;
  listStream = stream;
  if (!stream) return;
  listSource = new EventSource(stream);
  listSource.addEventListener("payment", () => htmx.trigger(document.body, "payments-changed"));
}
if (typeof EventSource === "function" && typeof htmx === "object") {
  followList();
  document.body.addEventListener("htmx:afterSettle", followList);
}
