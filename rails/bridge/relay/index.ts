export { createRelayAdapter } from "./createRelayAdapter.ts";
export { verifyRelayWebhook, type RelayWebhookEvent, type VerifyRelayWebhookInput } from "./verifyRelayWebhook.ts";
export { RELAY_MAINNET_URL, RELAY_TESTNET_URL, type RelayAdapterOptions } from "./types.ts";
