import { cors } from "@elysiajs/cors";
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { ApiDeps } from "./deps.ts";
import { errorsPlugin } from "./plugins/errors.ts";
import { rateLimitsPlugin } from "./plugins/rateLimits.ts";
import { requestLimitsPlugin } from "./plugins/requestLimits.ts";
import { requestContextPlugin } from "./plugins/requestContext.ts";
import { textGuardPlugin } from "./plugins/textGuard.ts";
import { agentPolicyRoutes } from "./routes/agentPolicies.ts";
import { agentSettingRoutes } from "./routes/agentSettings.ts";
import { checkoutRoutes } from "./routes/checkout.ts";
import { bridgeWebhookRoutes } from "./routes/bridgeWebhooks.ts";
import { contractRoutes } from "./routes/contracts.ts";
import { crossChainRoutes } from "./routes/crossChain.ts";
import { currencyRoutes } from "./routes/currency.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { depositRoutes } from "./routes/deposits.ts";
import { eventRoutes } from "./routes/events.ts";
import { merchantAccountRoutes } from "./routes/merchantAccount.ts";
import { merchantRoutes } from "./routes/merchants.ts";
import { networkRoutes } from "./routes/networks.ts";
import { operatorRoutes } from "./routes/operator.ts";
import { paymentActionRoutes } from "./routes/paymentActions.ts";
import { paymentRoutes } from "./routes/payments.ts";
import { publicPaymentRoutes } from "./routes/publicPayments.ts";
import { refundRequestRoutes } from "./routes/refundRequests.ts";
import { returnOriginRoutes } from "./routes/returnOrigins.ts";
import { sandboxRoutes } from "./routes/sandbox.ts";
import { signedRefundRoutes } from "./routes/signedRefunds.ts";
import { systemRoutes } from "./routes/system.ts";
import { webhookEndpointRoutes, webhookSecretRoutes } from "./routes/webhookEndpoints.ts";
import { x402Routes } from "./routes/x402.ts";

/** The product API under one prefix; mounted twice (versioned and unversioned paths). */
const versionedApi = (prefix: string, deps: ApiDeps) =>
  new Elysia({ prefix })
    .use(networkRoutes(deps))
    .use(contractRoutes(deps))
    .use(paymentActionRoutes(deps))
    .use(publicPaymentRoutes(deps))
    .use(merchantAccountRoutes(deps))
    .use(crossChainRoutes(deps))
    .use(paymentRoutes(deps))
    .use(depositRoutes(deps))
    .use(refundRequestRoutes(deps))
    .use(signedRefundRoutes(deps))
    .use(merchantRoutes(deps))
    .use(webhookEndpointRoutes(deps))
    .use(webhookSecretRoutes(deps))
    .use(returnOriginRoutes(deps))
    .use(eventRoutes(deps))
    .use(agentPolicyRoutes(deps))
    .use(agentSettingRoutes(deps))
    .use(sandboxRoutes(deps))
    .use(currencyRoutes(deps))
    .use(bridgeWebhookRoutes(deps))
    .use(x402Routes(deps));

/** Builds the whole HTTP app. Tests call `app.handle(new Request("http://localhost/…"))`. */
export function createApp(deps: ApiDeps) {
  return new Elysia()
    .use(requestContextPlugin(deps.logger))
    .use(
      // Checkout pages call the credential-free and public-key routes from the customer's
      // browser, on the merchant's origin. API key + secret stay on servers: their headers
      // are not allowed cross-origin, and no cookies are involved.
      cors({
        origin: deps.config.http.corsOrigins === "*" ? "*" : deps.config.http.corsOrigins,
        methods: ["GET", "POST"],
        allowedHeaders: ["Content-Type", "X-Public-Key", "Idempotency-Key", "X-Agent-Id", "X-Request-Id"],
        exposeHeaders: ["Idempotent-Replayed", "Deprecation", "X-Request-Id"],
        credentials: false,
        maxAge: 600,
      }),
    )
    .use(errorsPlugin(deps.logger))
    .use(requestLimitsPlugin())
    .use(rateLimitsPlugin(deps))
    .use(textGuardPlugin())
    .use(
      openapi({
        path: "/docs",
        documentation: {
          info: {
            title: "Stablecoin payment API",
            version: "v1",
            description: "Accept USDC/USDT on EVM chains and Solana. Paths are under /api/v1 (and unversioned /api).",
          },
          components: {
            securitySchemes: {
              publicKey: { type: "apiKey", in: "header", name: "X-Public-Key" },
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
              apiSecret: { type: "apiKey", in: "header", name: "X-API-Secret" },
            },
          },
        },
        // The unversioned copies are the same handlers; document each route once.
        exclude: { paths: [/^\/api\/(?!v1\/|health$|versions$)/] },
      }),
    )
    .use(systemRoutes(deps))
    .use(operatorRoutes(deps))
    .use(checkoutRoutes(deps))
    .use(dashboardRoutes(deps))
    .use(versionedApi("/api/v1", deps))
    .use(versionedApi("/api", deps));
}

export type App = ReturnType<typeof createApp>;
