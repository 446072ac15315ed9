import { makeWebhookClient, type WebhookClient } from "helius-sdk/webhooks/client";

/**
 * Keeps one Helius webhook (enhanced, every transaction type) pointed at `webhookURL`
 * with exactly the watched addresses and our `authHeader`: created on first use, updated
 * when the set changes. Production only; the sandbox and tests use the websocket and the poller.
 */
export function createHeliusWebhookSync(options: { apiKey: string; webhookUrl: string; authHeader: string; devnet: boolean; client?: WebhookClient }) {
  const client = options.client ?? makeWebhookClient(options.apiKey);
  let webhookId: string | null = null;
  let registered = "";
  return async function sync(addresses: readonly string[]): Promise<void> {
    const key = [...addresses].sort().join(",");
    if (key === registered) return;
    const params = {
      webhookURL: options.webhookUrl,
      transactionTypes: ["ANY"],
      accountAddresses: [...addresses].sort(),
      webhookType: options.devnet ? "enhancedDevnet" : "enhanced",
      authHeader: options.authHeader,
      txnStatus: "success",
    };
    if (!webhookId) webhookId = (await client.getAll()).find((w) => w.webhookURL === options.webhookUrl)?.webhookID ?? null;
    webhookId = webhookId ? (await client.update(webhookId, params)).webhookID : (await client.create(params)).webhookID;
    registered = key;
  };
}
