import { makeWebhookClient, type WebhookClient } from "helius-sdk/webhooks/client";

/**
 * Keeps one Helius webhook (enhanced, every transaction type, successful transactions)
 * pointed at `webhookURL` with exactly the watched addresses and our `authHeader`: found
 * by URL and type (mainnet and devnet networks each keep their own), created on first use,
 * re-enabled if Helius disabled it (it does after many failed deliveries), updated when the
 * set changes. It is looked up again every `recheckMs` while the set stays the same (Helius
 * may disable or someone delete it meanwhile), and after any failed update (deleted: it is
 * created again). A failed call leaves the set unregistered, so the next call tries again.
 * Calls run one at a time (the subscriber calls about once a second without waiting: two at
 * once, before the webhook is known, would each create one); the calls made while one runs
 * share one turn after it, which sends the newest set.
 * Production only; the sandbox and tests use the websocket and the poller.
 */
export function createHeliusWebhookSync(options: { apiKey: string; webhookUrl: string; authHeader: string; devnet: boolean; client?: WebhookClient; recheckMs?: number }) {
  const client = options.client ?? makeWebhookClient(options.apiKey);
  const webhookType = options.devnet ? "enhancedDevnet" : "enhanced";
  const recheckMs = options.recheckMs ?? 5 * 60_000;
  let webhookId: string | null = null;
  let checkedAt = 0;
  let registered = "";
  let latest: string[] = [];
  let last: Promise<void> = Promise.resolve();
  /** A turn queued behind the running one, not started yet: later calls join it (it sends the newest set). */
  let queued: Promise<void> | null = null;

  /** Registers the newest set asked for, unless it already is. */
  async function register(): Promise<void> {
    const accountAddresses = latest;
    const key = accountAddresses.join(",");
    const due = Date.now() - checkedAt >= recheckMs;
    if (key === registered && !due) return;
    const params = { webhookURL: options.webhookUrl, transactionTypes: ["ANY"], accountAddresses, webhookType, authHeader: options.authHeader, txnStatus: "success" };
    if (!webhookId || due) {
      const existing = (await client.getAll()).find((w) => w.webhookURL === options.webhookUrl && w.webhookType === webhookType);
      if (existing && existing.active === false) await client.toggle(existing.webhookID, true);
      webhookId = existing?.webhookID ?? null;
      checkedAt = Date.now();
      if (!webhookId) registered = ""; // gone: created below
      if (key === registered) return;
    }
    try {
      webhookId = webhookId ? (await client.update(webhookId, params)).webhookID : (await client.create(params)).webhookID;
    } catch (error) {
      webhookId = null; // deleted meanwhile (404), or not to be trusted: looked up again next call
      throw error;
    }
    registered = key;
  }

  return function sync(addresses: readonly string[]): Promise<void> {
    latest = [...new Set(addresses)].sort();
    if (!queued) {
      // After the running turn, failed or not (its failure is its own callers' to report).
      queued = last = last.catch(() => {}).then(() => {
        queued = null;
        return register();
      });
    }
    return queued;
  };
}
