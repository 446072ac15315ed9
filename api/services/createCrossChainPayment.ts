import { randomUUID } from "node:crypto";
import { insertBridgeRequest } from "../../db/bridgeRequests.ts";
import { withIdempotency } from "../../db/idempotency.ts";
import { insertPayment } from "../../db/payments.ts";
import { formatAmount, unitsOf } from "../../domain/amounts.ts";
import { idempotencyKeyOf, replayWindowOf } from "../../domain/idempotency.ts";
import { bridgeAdapterFor } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { crossChainPort } from "../../rails/index.ts";
import type { CrossChainQuote } from "../../rails/ports/crossChain.ts";
import { ratesFor } from "../../rates/index.ts";
import { recordCreated } from "../../reconcile/index.ts";
import { checkoutUrlOf } from "../presenters/payment.ts";
import { assertReturnUrls } from "./returnUrls.ts";
import { merchantColumns } from "../requests/merchantFields.ts";
import type { CreationContext } from "./createPayment.ts";
import { assertRoomForPayment } from "./openPaymentCap.ts";
import { assertPublicWebhookTarget } from "./assertWebhookUrl.ts";
import { enforceAgentPolicy } from "./enforceAgentPolicy.ts";
import { parseCrossChainPaymentRequest, type CrossChainBody, type CrossChainPaymentRequest } from "../requests/crossChainPaymentRequest.ts";
import { resolveCrossChainRoute, type CrossChainRoute } from "./resolveCrossChainRoute.ts";
import { settlementRate } from "./settlementRate.ts";
import { publicTargetsOnly } from "../../webhooks/publicTargetsOnly.ts";

export type CrossChainContext = CreationContext;

/**
 * Creates a cross-chain payment once per idempotency key (header, else orderId, else the
 * body; /api and /api/v1 share keys): parses the body into a typed request
 * (`parseCrossChainPaymentRequest`), resolves the route, asks its bridge for a deposit
 * address inside the idempotency transaction (so concurrent duplicates quote once), and
 * stores the payment — on the merchant's chain, for the amount the merchant receives —
 * with its bridge request and `payment.created`. Expiry is whole seconds from now.
 */
export async function createCrossChainPayment(ctx: CrossChainContext, body: CrossChainBody) {
  const { config, db, auth } = ctx;
  const { key, requestHash } = idempotencyKeyOf(ctx.idempotencyKey, body);
  const idempotency = {
    merchantId: auth.merchantId,
    mode: auth.mode,
    scope: "payments.cross-chain.create",
    key,
    requestHash,
    replayWithinSeconds: replayWindowOf(key, config.payments.bodyWindowSeconds),
  };
  const replay = await ctx.creations.storedResponse(idempotency);
  if (replay) return replay;

  // Parsed after the replay: a stored answer stands even if the networks have changed since.
  const request = parseCrossChainPaymentRequest(body, { config, auth, agentHeader: ctx.agentId });
  const { expiresIn } = request;
  const merchant = await ctx.creations.settings(auth.merchantId);
  assertReturnUrls(auth, merchant, request.returnUrls);
  const route = resolveCrossChainRoute(config, auth.mode, merchant?.wallets ?? new Map<string, string>(), request.route);
  const amount = unitsOf(request.amount, route.destinationToken.decimals);
  if (request.callbackUrl !== null && publicTargetsOnly(config.webhooks, auth.mode)) await assertPublicWebhookTarget("callbackUrl", request.callbackUrl);
  // Before the bridge is asked for a quote.
  await assertRoomForPayment(ctx);
  const settlement = await settlementRate(ratesFor(config), merchant?.settlementCurrency ?? "USD", null);

  // Relay answers over HTTP (up to RELAY_TIMEOUT_MS): its quote is taken before the transaction,
  // so a slow Relay holds none of the pool's connections (a pool's worth of such creates would
  // stall every other request). Concurrent duplicates in this process share it: one quote.
  // The local bridge writes its own books, which must commit with the payment: it quotes on
  // the transaction's connection (a second connection, waited for under the key's lock, might
  // never come).
  const quoteLocally = bridgeAdapterFor(config.bridge, route.origin, route.destination) === "local";
  const shared = quoteLocally ? null : shareQuote(`${auth.merchantId}:${auth.mode}:${key}:${requestHash}`, () => quoteFor(ctx, route, amount, expiresIn, db));
  try {
    return await insertCrossChainPayment(ctx, request, { idempotency, route, amount, settlement }, shared ? await shared.quote : null);
  } finally {
    shared?.release();
  }
}

/** The payment, its bridge request and `payment.created`, once per idempotency key; then its expiry and first bridge read. */
async function insertCrossChainPayment(
  ctx: CrossChainContext,
  request: CrossChainPaymentRequest,
  input: {
    idempotency: Parameters<typeof withIdempotency>[1];
    route: CrossChainRoute;
    amount: bigint;
    settlement: Awaited<ReturnType<typeof settlementRate>>;
  },
  offTransaction: QuotedPayment | null,
) {
  const { config, db, auth } = ctx;
  const { idempotency, route, amount, settlement } = input;
  const { agentId, metadata, expiresIn } = request;
  const result = await withIdempotency(db, idempotency, async (tx) => {
    const { id, now, expiresAt, quoted } = offTransaction ?? (await quoteFor(ctx, route, amount, expiresIn, tx));
    const { adapter, quote, refundTo } = quoted;
    const { destination, destinationToken: token, origin, originToken } = route;
    // An agent's policy applies to what the merchant receives, on the merchant's network and token.
    if (agentId) {
      await enforceAgentPolicy(tx, { merchantId: auth.merchantId, mode: auth.mode, agentId, amount, decimals: token.decimals, network: destination.shortName, token: token.symbol, now });
    }
    const row = await insertPayment(tx, {
      id,
      merchantId: auth.merchantId,
      mode: auth.mode,
      isTest: auth.mode === "test",
      kind: "cross_chain",
      amount,
      amountRemaining: amount,
      currency: token.symbol,
      ...settlement,
      tokenSymbol: token.symbol,
      tokenAddress: token.address,
      tokenDecimals: token.decimals,
      networkId: destination.id,
      chainId: destination.chainId,
      merchantWallet: route.merchantWallet,
      ...merchantColumns(request),
      metadata,
      agentId,
      bridgeStatus: "awaiting_deposit",
      expiresAt,
      createdAt: now,
      updatedAt: now,
    });
    await insertBridgeRequest(tx, {
      paymentId: id,
      adapter,
      requestId: quote.requestId,
      originChainId: origin.chainId,
      originTokenSymbol: originToken.symbol,
      originTokenAddress: originToken.address,
      originTokenDecimals: originToken.decimals,
      depositAddress: quote.depositAddress,
      amountToSend: quote.amountToSend,
      refundTo,
      fees: quote.fees ? { ...quote.fees, total: quote.fees.total.toString() } : null,
      expiresAt,
    });
    await recordCreated(tx, [row]);
    return {
      status: 201,
      body: {
        success: true,
        payment: {
          id,
          status: row.status,
          relayDepositAddress: quote.depositAddress,
          amountToSend: quote.amountToSend.toString(),
          amountToSendFormatted: formatAmount(quote.amountToSend, originToken.decimals),
          originChainId: Number(origin.chainId),
          originCurrency: originToken.symbol,
          destination: { network: destination.shortName, currency: token.symbol, amount: formatAmount(amount, token.decimals) },
          expiresAt: expiresAt.toISOString(),
          // The hosted page asking for the origin leg and following the bridge.
          checkoutUrl: checkoutUrlOf(config.http.publicBaseUrl, id),
        },
      },
    };
  });

  if (!result.replayed) {
    ctx.creations.created(auth.merchantId, auth.mode);
    const payment = (result.body as { payment: { id: string; expiresAt: string } }).payment;
    // After commit; if Redis is down the periodic recheck expires the payment and reads the bridge.
    await Promise.all([ctx.prompts.expire([payment.id], new Date(payment.expiresAt)), ctx.prompts.bridge([payment.id], { delayMs: config.bridge.pollIntervalMs })]).catch(
      (error: unknown) => ctx.logger.warn({ err: error, paymentId: payment.id }, "could not schedule expiry or the bridge read; recheck will"),
    );
  }
  return result;
}

type QuotedPayment = { id: string; now: Date; expiresAt: Date; quoted: CrossChainQuote };

/** A payment id and its bridge's deposit address, for a payment created now. */
async function quoteFor(ctx: CrossChainContext, route: CrossChainRoute, amount: bigint, expiresIn: number, db: Db): Promise<QuotedPayment> {
  const id = randomUUID();
  const now = new Date();
  // Honoured to the second: a deposit in a block stamped at `expiresAt` counts, one a second later does not.
  const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + expiresIn * 1000);
  const quoted = await crossChainPort().quote({ config: ctx.config, db, logger: ctx.logger }, { ...route, recipient: route.merchantWallet, amount, expiresAt, reference: id });
  return { id, now, expiresAt, quoted };
}

/**
 * Quotes taken in this process, by idempotency key and request, until the creation that took
 * one has committed (or failed): a duplicate arriving meanwhile shares it, then waits on the
 * key's row and replays the stored answer. Released at the quote's settling only, a duplicate
 * that had checked for a stored answer before the first committed asked the bridge again.
 */
const quotesUnderWay = new Map<string, Promise<QuotedPayment>>();

function shareQuote(key: string, take: () => Promise<QuotedPayment>): { quote: Promise<QuotedPayment>; release: () => void } {
  const under = quotesUnderWay.get(key);
  if (under) return { quote: under, release: () => {} };
  const quote = take();
  quotesUnderWay.set(key, quote);
  // A failed quote is not shared with later retries; the taker releases it once its creation is done.
  const release = () => void (quotesUnderWay.get(key) === quote && quotesUnderWay.delete(key));
  quote.catch(release);
  return { quote, release };
}
