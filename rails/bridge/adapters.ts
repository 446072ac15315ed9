import type { BridgeAdapterName } from "../../config/index.ts";
import type { RailContext } from "../types.ts";
import type { BridgeAdapter } from "./adapter.ts";
import { createLocalAdapter } from "./local/index.ts";
import { createRelayAdapter } from "./relay/index.ts";

const relayAdapters = new Map<string, BridgeAdapter>();

/**
 * The adapter called `name`, set up from the configuration: Relay at its mainnet or its
 * testnet base URL (a route's chains are both one or the other), or the local bridge.
 */
export function bridgeAdapter(ctx: RailContext, name: BridgeAdapterName, testnet: boolean): BridgeAdapter {
  if (name === "local") return createLocalAdapter(ctx);
  const { mainnetUrl, testnetUrl, apiKey, timeoutMs, depositLagMs } = ctx.config.bridge.relay;
  const baseUrl = testnet ? testnetUrl : mainnetUrl;
  const key = `${baseUrl}|${apiKey ?? ""}|${timeoutMs}|${depositLagMs}`;
  let adapter = relayAdapters.get(key);
  if (!adapter) relayAdapters.set(key, (adapter = createRelayAdapter({ baseUrl, apiKey: apiKey ?? undefined, timeoutMs, depositLagMs })));
  return adapter;
}
