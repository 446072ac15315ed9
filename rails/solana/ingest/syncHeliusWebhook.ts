import { makeWebhookClient, type WebhookClient } from "helius-sdk/webhooks/client";

/**
 * Keeps one Helius webhook (enhanced, every transaction type, successful transactions)
 * pointed at `webhookURL` with exactly the watched addresses and our `authHeader`: found
 * by URL and type (mainnet and devnet networks each keep their own), created on first use,
 * re-enabled if Helius disabled it (it does after many failed deliveries), updated when the
 * set changes. A failed call leaves the set unregistered, so the next call tries again.
 * Calls run one at a time (the subscriber calls about once a second without waiting: two at
 * once, before the webhook is known, would each create one); the calls made while one runs
 * share one turn after it, which sends the newest set.
 * Production only; the sandbox and tests use the websocket and the poller.
 */
export function createHeliusWebhookSync(options: { apiKey: string; webhookUrl: string; authHeader: string; devnet: boolean; client?: WebhookClient }) {
  const client = options.client ?? makeWebhookClient(options.apiKey);
  const webhookType = options.devnet ? "enhancedDevnet" : "enhanced";
  let webhookId: string | null = null;
  let registered = "";
  let latest: string[] = [];
  let last: Promise<void> = Promise.resolve();
  /** A turn queued behind the running one, not started yet: later calls join it (it sends the newest set). */
  let queued: Promise<void> | null = null;

  /** Registers the newest set asked for, unless it already is. */
  async function register(): Promise<void> {
    const accountAddresses = latest;
    const key = accountAddresses.join(",");
    if (key === registered) return;
    const params = { webhookURL: options.webhookUrl, transactionTypes: ["ANY"], accountAddresses, webhookType, authHeader: options.authHeader, txnStatus: "success" };
    if (!webhookId) {
      const existing = (await client.getAll()).find((w) => w.webhookURL === options.webhookUrl && w.webhookType === webhookType);
      if (existing && existing.active === false) await client.toggle(existing.webhookID, true);
      webhookId = existing?.webhookID ?? null;
    }
    webhookId = webhookId ? (await client.update(webhookId, params)).webhookID : (await client.create(params)).webhookID;
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
