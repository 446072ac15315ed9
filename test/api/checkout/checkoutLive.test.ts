import { expect, test } from "bun:test";
// @ts-expect-error: a browser module without types
import { followPayment } from "../../../api/checkout/assets/live.js";

/** The page's live view with a scripted EventSource and fetch in place of the browser's (handed in: no global is changed). */
class FakeEventSource {
  static last: FakeEventSource;
  listeners = new Map<string, ((event: { data?: string }) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.last = this;
  }
  addEventListener(type: string, listener: (event: { data?: string }) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  emit(type: string, data?: unknown) {
    for (const listener of this.listeners.get(type) ?? []) listener({ data: data === undefined ? undefined : JSON.stringify(data) });
  }
}


/**
 * Waits until `views` holds `n` views (an answer reaches the page through fetch's promise
 * chain, slower on a loaded machine), then a little longer for one that must not come.
 */
async function shown(views: string[], n: number) {
  for (const end = Date.now() + 5_000; views.length < n && Date.now() < end; ) await Bun.sleep(5);
  await Bun.sleep(20);
}

// BUG: a poll still in flight when the stream came back was shown after the stream's newer view.
test("a poll answered after the stream spoke is dropped; one answered while polling is shown", async () => {
  let answer!: (status: string) => void;
  const fetchImpl = () => new Promise((resolve) => (answer = (status) => resolve(new Response(JSON.stringify({ payment: { status } })))));
  const views: string[] = [];
  followPayment({ apiBase: "http://x/api/v1", paymentId: "p", onView: (view: { status: string }) => views.push(view.status), pollMs: 60_000, fetchImpl, eventSource: FakeEventSource });
  const source = FakeEventSource.last;

  source.emit("error"); // the stream drops: the page polls at once
  source.emit("payment", { status: "completed" }); // the stream is back, with news
  answer("confirming"); // the older poll answers last
  await shown(views, 1);
  expect(views).toEqual(["completed"]);

  source.emit("error");
  answer("completed");
  await shown(views, 2);
  expect(views).toEqual(["completed", "completed"]);
  source.emit("open"); // stops the page's polling timer
});

// BUG: two polls in flight at once (one slower than the interval, or a refresh beside the timer's)
// were both shown, the older answer last: "pending" came back over "confirming", and with it the
// pay button the customer had just used.
test("polling: an older poll answered after a newer one is dropped", async () => {
  const answers: Array<(status: string) => void> = [];
  const fetchImpl = () => new Promise((resolve) => answers.push((status) => resolve(new Response(JSON.stringify({ payment: { status } })))));
  const views: string[] = [];
  const live = followPayment({ apiBase: "http://x/api/v1", paymentId: "p", onView: (view: { status: string }) => views.push(view.status), pollMs: 60_000, fetchImpl, eventSource: null });
  void live.refresh(); // a refresh while the first poll is still out
  answers[1]!("confirming");
  await shown(views, 1);
  answers[0]!("pending");
  await shown(views, 1);
  expect(views).toEqual(["confirming"]);
  void live.refresh();
  answers[2]!("completed");
  await shown(views, 2);
  expect(views).toEqual(["confirming", "completed"]);
});
