import { Elysia, t } from "elysia";
import { bridgeFillsOf, findBridgeRequest } from "../../db/bridgeRequests.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { crossChainPort } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentCrossChainSource, presentCrossChainStatus } from "../presenters/crossChain.ts";
import { createPaymentHeaders, paymentIdParams } from "../schemas.ts";
import { createCrossChainPayment } from "../services/createCrossChainPayment.ts";
import { requirePayment } from "../services/requirePayment.ts";

const crossChainBody = t.Object(
  {
    amount: t.Union([t.String({ maxLength: 100 }), t.Number()], { description: "What the merchant receives, e.g. 25.5 (destination token units)" }),
    originChainId: t.Integer({ description: "The EVM chain the customer pays on (see /payments/cross-chain/sources)" }),
    originCurrency: t.String({ minLength: 1, maxLength: 16, description: "The token the customer pays in on the origin chain" }),
    customerEmail: t.Optional(t.String({ format: "email", maxLength: 320 })),
    callbackUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL for webhooks" })),
    successUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL the hosted checkout page sends the customer to once paid" })),
    cancelUrl: t.Optional(t.String({ maxLength: 2048, description: "http(s) URL the hosted checkout page offers to go back to without paying" })),
    orderId: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    metadata: t.Optional(t.Unknown({ description: "Map of string keys to string values (at most 50)" })),
    expiresIn: t.Optional(t.Integer({ description: "Seconds until expiry (default 1800), honoured to the second" })),
    network: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "Destination network (a shortName); default: the first your wallets and the bridges allow" })),
    currency: t.Optional(t.String({ minLength: 1, maxLength: 16, description: "Destination token; default: originCurrency when the destination has it, else USDC" })),
    agentId: t.Optional(t.String({ maxLength: 200, description: "Agent creating the payment (or header X-Agent-Id); checked against its policy" })),
  },
  { additionalProperties: true },
);

/** Cross-chain payments: the customer pays on another chain and a bridge delivers to the merchant's wallet. */
export const crossChainRoutes = (deps: ApiDeps) => {
  const { config, db } = deps;
  return new Elysia({ prefix: "/payments/cross-chain", tags: ["Cross-chain payments"] })
    .use(authPlugin(deps.credentials))
    .post(
      "/create",
      async ({ auth, body, headers, set }) => {
        const result = await createCrossChainPayment({ ...deps, auth, idempotencyKey: headers["idempotency-key"], agentId: headers["x-agent-id"] }, body);
        set.status = result.status;
        if (result.replayed) set.headers["Idempotent-Replayed"] = "true";
        return result.body;
      },
      {
        auth: "public",
        body: crossChainBody,
        headers: createPaymentHeaders,
        detail: { summary: "Create a payment the customer makes on another chain (idempotent like /payments/create)" },
      },
    )
    .get(
      "/sources",
      async () => {
        const bridge = crossChainPort();
        return {
          success: true,
          sources: await Promise.all(
            bridge.sources(config).map(async (origin) => {
              const destinations = bridge.destinationsFrom(config, origin);
              const minimums = await Promise.all(destinations.map((destination) => bridge.routeMinimum(deps, origin, destination)));
              return presentCrossChainSource(origin, destinations, minimums);
            }),
          ),
        };
      },
      { detail: { summary: "Chains and tokens a customer can pay from, and each route's minimum where the bridge states one (no credentials)" } },
    )
    .get(
      "/status/:paymentId",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        const request = payment.kind === "cross_chain" ? await findBridgeRequest(db, payment.id) : undefined;
        if (!request) throw new NotFoundError(`Payment ${payment.id} is not a cross-chain payment.`);
        const fills = await bridgeFillsOf(db, [payment.id]);
        const network = config.networks.find((n) => n.chainId === payment.chainId);
        return { success: true, payment: presentCrossChainStatus(payment, network, request, fills) };
      },
      { auth: "public", params: paymentIdParams, detail: { summary: "Bridge progress: both legs (origin deposit, destination fill, refund)" } },
    );
};
