import { randomUUID } from "node:crypto";
import { erc20Abi, getAddress } from "viem";
import type { Network } from "../../../config/index.ts";
import { formatAmount } from "../../../domain/amounts.ts";
import { BridgeRouteError, BridgeUnavailableError, ValidationError } from "../../../domain/errors.ts";
import { evmClient } from "../../evm/client.ts";
import { computeDepositAddress } from "../../evm/settlement/index.ts";
import type { RailContext } from "../../types.ts";
import type { BridgeQuote, BridgeQuoteRequest } from "../adapter.ts";
import { findFactory, insertRequest } from "./books.ts";
import { localFillMinimum } from "./fillMinimum.ts";
import { localAmounts } from "./localAmounts.ts";
import { localChains } from "./localChains.ts";
import { relayerAccount } from "./relayerAccount.ts";

/**
 * A local bridge quote: a deposit address (a CREATE2 forwarder of the relayer's factory on
 * the origin chain, salted with the new request id) and what to send there, written to the
 * relayer's books before it is handed out. The relayer must be running on the origin chain
 * (its factory exists) and hold enough of the destination token to fill, and the amount
 * must be at least its minimum (`localFillMinimum`), as a real bridge's: NO_ROUTE otherwise.
 */
export async function quoteLocal(ctx: RailContext, request: BridgeQuoteRequest): Promise<BridgeQuote> {
  const local = ctx.config.bridge.local;
  if (!local) throw new BridgeUnavailableError("local", "no relayer is configured (BRIDGE_LOCAL_RELAYER_KEY)");
  if (request.amount <= 0n) throw new ValidationError("amount", "The amount to bridge must be greater than zero.");
  if (request.expiresAt.getTime() <= Date.now()) throw new ValidationError("expiresAt", "The payment expires before the bridge could be paid.");
  const served = localChains(ctx.config);
  const chain = (chainId: number): Network | undefined => served.find((n) => n.chainId === String(chainId));
  const origin = chain(request.originChainId);
  const destination = chain(request.destinationChainId);
  if (!origin || !destination) throw new BridgeRouteError(`The local bridge does not serve chain ${request.originChainId} to chain ${request.destinationChainId}.`, "UNSUPPORTED_ROUTE");
  const token = (network: Network, address: string) => network.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase());
  const originToken = token(origin, request.originToken);
  const destinationToken = token(destination, request.destinationToken);
  if (!originToken || !destinationToken) throw new BridgeRouteError("The local bridge does not carry this token pair.", "UNSUPPORTED_CURRENCY");

  // Below the relayer's minimum its fee would not pay for the fill: no route, as a real bridge answers.
  const minimum = await localFillMinimum(ctx, destination, destinationToken).catch((error: Error) => {
    throw new BridgeUnavailableError("local", `could not read ${destination.name}'s gas price: ${error.message.split("\n")[0]}`, { cause: error });
  });
  if (minimum !== null && request.amount < minimum) {
    throw new BridgeRouteError(
      `Amount too low for the local bridge: from ${origin.name} to ${destination.name} it delivers at least ${formatAmount(minimum, destinationToken.decimals)} ${destinationToken.symbol}, so that the relayer's ${local.feeBps} bps fee covers the gas of its fill on ${destination.name} at the current gas price.`,
      "AMOUNT_TOO_LOW",
    );
  }

  const factory = await findFactory(ctx.db, origin.chainId);
  // The API holds no relayer key: the relayer named in its books is the one that deployed the
  // factory. Where the key is held, a factory another relayer key deployed is not its own yet.
  const relayer = ctx.config.bridge.local?.relayerPrivateKey ? relayerAccount(ctx.config).address : factory && getAddress(factory.relayer);
  if (!factory || getAddress(factory.relayer) !== relayer) throw new BridgeUnavailableError("local", `the relayer has not started on ${origin.name} yet`);
  const timeout = ctx.config.rpcTimeoutMs * 2;
  const [liquidity, head] = await Promise.all([
    evmClient(destination, timeout).readContract({ address: getAddress(destinationToken.address), abi: erc20Abi, functionName: "balanceOf", args: [relayer] }),
    evmClient(origin, timeout).getBlockNumber(),
  ]).catch((error: Error) => {
    throw new BridgeUnavailableError("local", `could not read the chains: ${error.message.split("\n")[0]}`, { cause: error });
  });
  if (liquidity < request.amount) {
    throw new BridgeRouteError(
      `Insufficient liquidity: the local relayer holds ${formatAmount(liquidity, destinationToken.decimals)} ${destinationToken.symbol} on ${destination.name}, less than the ${formatAmount(request.amount, destinationToken.decimals)} to deliver.`,
      "INSUFFICIENT_LIQUIDITY",
    );
  }

  const { fee, amountToSend } = localAmounts({ amount: request.amount, destinationDecimals: destinationToken.decimals, originDecimals: originToken.decimals, feeBps: local.feeBps });
  const id = randomUUID();
  const depositAddress = computeDepositAddress({ factory: getAddress(factory.address), paymentId: id, merchantWallet: relayer });
  await insertRequest(ctx.db, {
    id,
    reference: request.reference,
    originChainId: origin.chainId,
    originToken: getAddress(originToken.address),
    destinationChainId: destination.chainId,
    destinationToken: getAddress(destinationToken.address),
    recipient: getAddress(request.recipient),
    depositAddress,
    amount: request.amount,
    amountToSend,
    fee,
    expiresAt: request.expiresAt,
    // Deposits can only come once the address is handed out: scanning starts at this head.
    scannedBlock: head > 0n ? head - 1n : 0n,
  });
  return {
    requestId: id,
    depositAddress,
    amountToSend,
    expiresAt: request.expiresAt,
    fees: { total: fee, currency: originToken.symbol, chainId: Number(origin.chainId), address: getAddress(originToken.address), decimals: originToken.decimals },
  };
}
