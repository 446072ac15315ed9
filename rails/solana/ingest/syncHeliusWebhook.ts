import { makeWebhookClient, type WebhookClient } from "helius-sdk/webhooks/client";

/**
 * Keeps one Helius webhook (enhanced, every transaction type, successful transactions)
 * pointed at `webhookURL` with exactly the watched addresses and our `authHeader`: found
 * by URL and type (mainnet and devnet networks each keep their own), created on first use,
 * re-enabled if Helius disabled it (it does after many failed deliveries), updated when the
 * set changes. A failed call leaves the set unregistered, so the next call tries again.
 * Production only; the sandbox and tests use the websocket and the poller.
 */
export function createHeliusWebhookSync(options: { apiKey: string; webhookUrl: string; authHeader: string; devnet: boolean; client?: WebhookClient }) {
  const client = options.client ?? makeWebhookClient(options.apiKey);
  const webhookType = options.devnet ? "enhancedDevnet" : "enhanced";
  let webhookId: string | null = null;
  let registered = "";
  return async function sync(addresses: readonly string[]): Promise<void> {
    const accountAddresses = [...new Set(addresses)].sort();
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
  };
}
