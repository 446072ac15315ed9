import { randomUUID } from "node:crypto";
import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { writePaymentCreation } from "../../reconcile/index.ts";
import type { NewPayment, PaymentRow } from "../../db/payments.ts";
import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { idempotencyKeyOf, replayWindowOf } from "../../domain/idempotency.ts";
import { presentPayment } from "../presenters/payment.ts";
import { ratesFor } from "../../rates/index.ts";
import { enforceAgentPolicy } from "./enforceAgentPolicy.ts";
import { priceInFiat } from "./priceInFiat.ts";
import { parseCreatePaymentRequest, type CreatePaymentBody } from "../requests/createPaymentRequest.ts";
import { settlementRate } from "./settlementRate.ts";
import { assertPublicWebhookTarget } from "./assertWebhookUrl.ts";
import type { PaymentCreations } from "./batchedCreations.ts";
import { assertReturnUrls } from "./returnUrls.ts";
import { merchantColumns } from "../requests/merchantFields.ts";
import { assertRoomForPayment } from "./openPaymentCap.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { publicTargetsOnly } from "../../webhooks/publicTargetsOnly.ts";

/** What every create needs: the service's parts, who asks, and their idempotency key and agent. */
export type CreationContext = {
  config: Config;
  db: Db;
  logger: Logger;
  prompts: Prompts;
  /** Where creates read their merchant's settings and are written (batched with concurrent ones). */
  creations: PaymentCreations;
  auth: Pick<AuthContext, "merchantId" | "mode" | "scheme">;
  idempotencyKey: string | undefined;
  /** `X-Agent-Id` header: the payment is checked against that agent's policy. */
  agentId?: string;
};

export type CreatePaymentContext = CreationContext & {
  /** Endpoint scope for idempotency keys (version-free: /api and /api/v1 share keys). */
  scope: string;
  kind: "payment" | "deposit";
  /** Forced expiry (deposit addresses: fifteen minutes, not settable). */
  fixedExpiresIn?: number;
};

/**
 * Creates a payment once per idempotency key: parses the body into a typed request
 * (`parseCreatePaymentRequest`), checks it against the merchant's account, lets the network's
 * payment method prepare it (receive address, signed intent), stores it with the stored
 * response, then schedules expiry after commit.
 */
export async function createPayment(ctx: CreatePaymentContext, body: CreatePaymentBody) {
  const { config, db, auth } = ctx;
  const { key, requestHash } = idempotencyKeyOf(ctx.idempotencyKey, body);
  const idempotency = { merchantId: auth.merchantId, mode: auth.mode, scope: ctx.scope, key, requestHash, replayWithinSeconds: replayWindowOf(key, config.payments.bodyWindowSeconds) };
  // The merchant's settings are read meanwhile (a read only: harmless if the request stops early).
  const settings = ctx.creations.settings(auth.merchantId);
  settings.catch(() => {});
  // A retry of a finished request gets its stored answer before anything else is looked at.
  const replay = await ctx.creations.storedResponse(idempotency);
  if (replay) return replay;
  // Parsed after the replay: a stored answer stands even if the networks have changed since.
  const request = parseCreatePaymentRequest(body, { config, auth, kind: ctx.kind, agentHeader: ctx.agentId, fixedExpiresIn: ctx.fixedExpiresIn });
  const { network, method, token, agentId, expiresIn } = request;
  // Public addresses only (SSRF: live mode, and test mode on production), checked again at each delivery.
  if (request.callbackUrl !== null && publicTargetsOnly(config.webhooks, auth.mode)) await assertPublicWebhookTarget("callbackUrl", request.callbackUrl);
  const unavailable = method.unavailable(config, network);
  if (unavailable) throw new ServiceUnavailableError(unavailable);
  await assertRoomForPayment(ctx);

  const merchant = await settings;
  assertReturnUrls(auth, merchant, request.returnUrls);
  const merchantWallet = merchant?.wallets.get(network.id);
  if (!merchantWallet) {
    throw new ValidationError("network", `Invalid field 'network': no settlement wallet is configured for ${network.name}; set one before accepting payments there`);
  }

  // Priced in fiat: converted now at a fresh rate (503 without one), rounded up; the rate is stored.
  const fiat = request.price.fiat ? await priceInFiat(ratesFor(config), request.price.fiat, token.decimals) : null;
  const owed = fiat?.units ?? request.price.units!;
  const settlement = await settlementRate(ratesFor(config), merchant?.settlementCurrency ?? "USD", fiat);

  const id = randomUUID();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + expiresIn * 1000);
  // Fees round down: the merchant is never charged more than the configured rate. Only where
  // the method collects it (not Solana Pay, which pays the merchant's wallet whole).
  const feeBps = method.collectsFee ? config.fees.bps : 0;
  const fee = feeBps > 0 ? (owed * BigInt(feeBps)) / 10_000n : 0n;
  // Before the transaction: a method may read or write its own rows (Solana's deposit addresses) on the
  // pool, which must never wait for a connection while this request holds one.
  const prepared = await method.prepare({ config, db, prompts: ctx.prompts }, {
    paymentId: id,
    kind: ctx.kind,
    network,
    token,
    amount: owed,
    fee,
    feeBps,
    feeRecipient: config.fees.recipient ?? merchantWallet,
    merchantWallet,
    expiresAt,
  });

  const payment: NewPayment = {
    id,
    merchantId: auth.merchantId,
    mode: auth.mode,
    isTest: auth.mode === "test",
    kind: ctx.kind,
    amount: owed,
    amountRemaining: owed,
    // `amount` is in the token: a fiat price keeps its currency, amount and rate beside it.
    currency: fiat ? token.symbol : request.currency,
    fiatAmount: fiat?.fiatAmount ?? null,
    fiatCurrency: fiat?.fiatCurrency ?? null,
    exchangeRate: fiat?.rate ?? null,
    exchangeRateSource: fiat?.source ?? null,
    exchangeRateAt: fiat?.rateAt ?? null,
    ...settlement,
    agentId,
    agentOwner: request.agentOwner,
    tokenSymbol: token.symbol,
    tokenAddress: token.address,
    tokenDecimals: token.decimals,
    networkId: network.id,
    chainId: network.chainId,
    ...prepared,
    merchantWallet,
    feeAmount: fee,
    ...merchantColumns(request),
    metadata: request.metadata,
    expiresAt,
    createdAt: now,
    updatedAt: now,
  };
  const creation = {
    idempotency,
    payment,
    respond: (row: PaymentRow) => ({ status: 201, body: { success: true, payment: presentPayment(row, network, config.http.publicBaseUrl) } }),
  };
  // An agent's payment is checked against its policy in the transaction that writes it, alone;
  // every other create may share a transaction with concurrent ones.
  const result = agentId
    ? await writePaymentCreation(db, creation, (tx) =>
        enforceAgentPolicy(tx, { merchantId: auth.merchantId, mode: auth.mode, agentId, amount: owed, decimals: token.decimals, network: network.shortName, token: token.symbol, now }),
      )
    : await ctx.creations.write(creation);

  if (!result.replayed) {
    ctx.creations.created(auth.merchantId, auth.mode);
    const payment = (result.body as { payment: { id: string; expiresAt: string } }).payment;
    // After commit; if Redis is down the periodic recheck still expires it.
    await ctx.creations.expireAt(payment.id, new Date(payment.expiresAt)).catch((error: unknown) =>
      ctx.logger.warn({ err: error, paymentId: payment.id }, "could not schedule expiry; recheck will catch it"),
    );
  }
  return result;
}
