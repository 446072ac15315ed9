import { fallback, http, webSocket, type Transport } from "viem";
import type { Network } from "../../config/types.ts";
import { rotationFor } from "../rpcRotation/registry.ts";
import { redactUrl } from "../rpcRotation/redactUrl.ts";
import type { ProviderRotation, RotationLimits } from "../rpcRotation/providerRotation.ts";

export type EvmTransportOptions = { timeoutMs: number; batch?: boolean; retryCount?: number };

const single = (url: string, o: EvmTransportOptions): Transport =>
  url.startsWith("ws")
    ? webSocket(url, { timeout: o.timeoutMs, retryCount: o.retryCount ?? 0 })
    : http(url, { timeout: o.timeoutMs, retryCount: o.retryCount ?? 0, batch: o.batch === true });

/**
 * How an EVM network's providers are judged: a local chain (anvil) is probed often so a
 * dropped node shows within a test's patience; a lag of about a minute of blocks is too far
 * behind to credit a payment in time.
 */
const evmRotationLimits = (network: Network): RotationLimits =>
  network.isLocal ? { intervalMs: 250, maxLag: 20n, stuckMs: 2_000 } : { intervalMs: 5_000, maxLag: 20n, stuckMs: 60_000 };

/** The rotation over `urls` of an EVM network: probed with eth_chainId and eth_blockNumber. */
export function evmRotation(network: Network, urls: string[]): ProviderRotation {
  return rotationFor(network, urls, evmRotationLimits(network), (url) => {
    const { request } = single(url, { timeoutMs: 5_000 })({ retryCount: 0 });
    return async () => {
      const [chainId, head] = await Promise.all([request({ method: "eth_chainId" }), request({ method: "eth_blockNumber" })]);
      return { chainId: BigInt(chainId as string).toString(), head: BigInt(head as string) };
    };
  });
}

/** A provider taken out of rotation refuses at once, so viem's fallback moves to the next. */
function guarded(inner: Transport, usable: () => boolean, provider: string): Transport {
  return (params) => {
    const transport = inner(params);
    const request: typeof transport.request = (args, options) => {
      if (!usable()) return Promise.reject(new Error(`RPC provider ${provider} is out of rotation`));
      return transport.request(args, options);
    };
    return { ...transport, request };
  };
}

/**
 * The transport for an EVM network's providers. One URL: that URL's transport, as before.
 * Several: viem's `fallback` ranking them by latency and stability, each guarded by the
 * network's rotation (errors, wrong chain id, stuck or lagging head take one out).
 */
export function evmTransport(network: Network, urls: string[], options: EvmTransportOptions): Transport {
  if (urls.length === 0) throw new Error(`network ${network.shortName} has no EVM RPC`);
  if (urls.length === 1) return single(urls[0]!, options);
  const rotation = evmRotation(network, urls);
  return fallback(
    urls.map((url, i) => guarded(single(url, options), () => rotation.usable(i), redactUrl(url))),
    { retryCount: options.retryCount ?? 0, rank: { interval: rotation.limits.intervalMs, ping: ({ transport }) => transport.request({ method: "eth_blockNumber" }) } },
  );
}
