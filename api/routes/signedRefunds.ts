import { Elysia, t } from "elysia";
import { formatAmount } from "../../domain/amounts.ts";
import { prepareMerchantSignedRefund, sendMerchantSignedRefund } from "../../payouts/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentRefundRequestOutcome } from "../presenters/refundRequest.ts";
import { paymentIdParams } from "../schemas.ts";
import { requirePayment } from "../services/requirePayment.ts";

const prepareBody = t.Object({
  address: t.Optional(t.String({ minLength: 1, maxLength: 100, description: "Where to send the refund; absent: back to the address that paid" })),
  amount: t.Optional(t.Union([t.String({ maxLength: 100 }), t.Number()], { description: "In token units; absent: all the payment received that is not refunded yet" })),
});

const signedBody = t.Object({
  authorization: t.Optional(t.Record(t.String({ maxLength: 20 }), t.Union([t.String({ maxLength: 100 }), t.Number()]), { description: "EVM: the signed typed data's `message`, as prepared" })),
  signature: t.Optional(t.String({ maxLength: 2000, description: "EVM: the wallet's signature of the typed data (0x hex)" })),
  transaction: t.Optional(t.String({ maxLength: 4000, description: "Solana: the prepared transaction, signed by the wallet (base64)" })),
  reason: t.Optional(t.String({ maxLength: 500 })),
});

/**
 * Refunds of money that went straight to the merchant's wallet (contract and x402 payments),
 * API key + secret only: the merchant's wallet signs the transfer back, the operator relays it
 * and pays its fee. `prepare` answers what to sign; the signed refund is then handed in.
 */
export const signedRefundRoutes = (deps: ApiDeps) =>
  new Elysia({ tags: ["Refunds"] })
    .use(authPlugin(deps.credentials))
    .post(
      "/payments/:paymentId/signed-refunds/prepare",
      async ({ auth, params, body }) => {
        const payment = await requirePayment(deps.db, auth, params.paymentId);
        const { network, toSign } = await prepareMerchantSignedRefund(deps, payment, body);
        const { amount, validUntil, ...rest } = toSign;
        return {
          success: true,
          signedRefund: { ...rest, network: network.shortName, chainId: network.chainId, token: payment.tokenSymbol, amount: formatAmount(amount, payment.tokenDecimals), validUntil: validUntil.toISOString() },
        };
      },
      { auth: "secret", params: paymentIdParams, body: prepareBody, detail: { summary: "What the merchant's wallet signs to refund a payment whose money it received (EIP-712 typed data, or a Solana transaction)" } },
    )
    .post(
      "/payments/:paymentId/signed-refunds",
      async ({ auth, params, body, set }) => {
        const payment = await requirePayment(deps.db, auth, params.paymentId);
        const sent = await sendMerchantSignedRefund(deps, payment, body, body.reason?.trim() || null);
        set.status = 202;
        const network = deps.config.networks.find((n) => n.chainId === payment.chainId)!;
        return presentRefundRequestOutcome(sent, payment, network);
      },
      { auth: "secret", params: paymentIdParams, body: signedBody, detail: { summary: "Hand in a refund the merchant's wallet signed: the operator relays it, paying the fee" } },
    );
