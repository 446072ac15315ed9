import type { BridgeAdapter } from "../adapter.ts";
import { quoteRelay } from "./quoteRelay.ts";
import { readRelayStatus } from "./readRelayStatus.ts";
import type { RelayAdapterOptions } from "./types.ts";

/**
 * The `relay` bridge adapter: Relay's HTTP API with strict deposit addresses.
 *
 * `refund` asks Relay for nothing: a strict deposit address refunds on its own to the
 * quote's `refundTo` (underpayment, failed fill, the excess of an overpayment), and the
 * API offers integrators no refund call, so it reports where the request stands. The
 * `refundTo` given here cannot redirect that refund; it was fixed at quote time.
 */
export function createRelayAdapter(options: RelayAdapterOptions): BridgeAdapter {
  return {
    name: "relay",
    refundsOnRequest: false,
    quote: (request) => quoteRelay(options, request),
    status: (request) => readRelayStatus(options, request),
    refund: (request) => readRelayStatus(options, { requestId: request.requestId, depositAddress: request.depositAddress }),
  };
}
