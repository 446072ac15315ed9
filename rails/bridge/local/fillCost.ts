import { encodeFunctionData, erc20Abi, getAddress, keccak256, toHex, type Address } from "viem";
import type { Network, Token } from "../../../config/index.ts";
import { evmClient } from "../../evm/client.ts";
import { withTimeout } from "../../../domain/withTimeout.ts";
import type { RailContext } from "../../types.ts";
import { findFactory } from "./books.ts";
import { relayerAccount } from "./relayerAccount.ts";

/** How long a chain's gas price is reused: `sources` needs no credentials, and must not turn each call into an RPC request. */
const GAS_PRICE_TTL_MS = 15_000;
const FAILED_READ_TTL_MS = 2_000;
/** The gas of a stablecoin transfer to an address that holds none yet, when the chain cannot estimate it (the relayer holds none of the token). */
const TRANSFER_GAS_FALLBACK = 65_000n;
/** An address that never holds a token: a transfer to it costs what a fill to a first-time recipient does (a new balance slot), the most a fill costs. */
export const FIRST_TIME_RECIPIENT = getAddress(`0x${keccak256(toHex("stablepay local bridge: a recipient that holds nothing")).slice(26)}`) as Address;

const gasPrices = new Map<string, { at: number; price: Promise<bigint> }>();
const transferGas = new Map<string, { until: number; units: Promise<bigint> }>();

/**
 * What one fill of `token` on `destination` costs the local relayer: the gas of a token
 * transfer to a first-time recipient (estimated by the chain once per token, from the
 * relayer; 65,000 while it cannot estimate it, asked again after 15 s) and the chain's
 * current gas price (read at most every 15 s, shared by every caller meanwhile). Throws
 * when the chain does not answer.
 */
export async function fillCost(ctx: RailContext, destination: Network, token: Token): Promise<{ gas: bigint; gasPrice: bigint }> {
  const timeout = ctx.config.rpcTimeoutMs * 2;
  const client = evmClient(destination, timeout);
  const now = Date.now();
  // Per chain and node: a chain id names another chain after a sandbox restart (or in each test's anvil).
  const chainKey = `${destination.chainId}|${destination.rpcUrl}`;
  let cached = gasPrices.get(chainKey);
  if (!cached || now - cached.at > GAS_PRICE_TTL_MS) {
    const price = withTimeout(client.getGasPrice(), timeout, `${destination.shortName} gas price`);
    cached = { at: now, price };
    gasPrices.set(chainKey, cached);
    // A failed read is kept for a few seconds only (a chain that does not answer is not asked on every call either).
    const entry = cached;
    price.catch(() => void (entry.at = Date.now() - GAS_PRICE_TTL_MS + FAILED_READ_TTL_MS));
  }
  // The price first: a chain that does not answer fails here, from the cache, without another request.
  const gasPrice = await cached.price;
  const key = `${chainKey}:${token.address.toLowerCase()}`;
  let gas = transferGas.get(key);
  if (!gas || now > gas.until) {
    const estimate = relayerAddress(ctx, destination).then((account) =>
      withTimeout(
        client.estimateGas({
          account,
        to: getAddress(token.address),
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [FIRST_TIME_RECIPIENT, 1n] }),
        }),
        timeout,
        `${destination.shortName} transfer gas`,
      ),
    );
    // Estimated once for good; the stand-in is kept like a gas price, so a refused estimate is not asked again on every call.
    const entry: { until: number; units: Promise<bigint> } = { until: Number.POSITIVE_INFINITY, units: estimate };
    entry.units = estimate.catch((): bigint => {
      entry.until = Date.now() + GAS_PRICE_TTL_MS;
      return TRANSFER_GAS_FALLBACK;
    });
    gas = entry;
    transferGas.set(key, entry);
  }
  return { gas: await gas.units, gasPrice };
}

/**
 * The relayer that fills on `destination`: its key's address where the key is held (worker),
 * else the relayer its books name for that chain (the API holds no relayer key). Throws when
 * neither is known, and the estimate falls back to the stand-in.
 */
async function relayerAddress(ctx: RailContext, destination: Network): Promise<Address> {
  if (ctx.config.bridge.local?.relayerPrivateKey) return relayerAccount(ctx.config).address;
  const factory = await findFactory(ctx.db, destination.chainId);
  if (!factory) throw new Error(`the relayer has not started on ${destination.name} yet`);
  return getAddress(factory.relayer);
}
