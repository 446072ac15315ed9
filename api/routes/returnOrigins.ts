import { Elysia, t } from "elysia";
import { listReturnOrigins, replaceReturnOrigins } from "../../db/returnOrigins.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { parseReturnOrigins } from "../services/returnOrigins.ts";

/**
 * The origins a payment created with a public key alone may name in `successUrl` and
 * `cancelUrl` (`api/services/returnUrls.ts`), per mode: read and replace (API key + secret).
 */
export const returnOriginRoutes = ({ db, credentials }: ApiDeps) =>
  new Elysia({ prefix: "/return-origins", tags: ["Checkout"] })
    .use(authPlugin(credentials))
    .get("", async ({ auth }) => ({ success: true, mode: auth.mode, origins: await listReturnOrigins(db, auth.merchantId, auth.mode) }), {
      auth: "secret",
      detail: { summary: "The origins public-key payments may return the customer to (successUrl, cancelUrl)" },
    })
    .put(
      "",
      async ({ auth, body }) => {
        const origins = parseReturnOrigins(body.origins);
        await replaceReturnOrigins(db, auth.merchantId, auth.mode, origins);
        return { success: true, mode: auth.mode, origins };
      },
      {
        auth: "secret",
        body: t.Object(
          { origins: t.Unknown({ description: 'http(s) origins, e.g. ["https://shop.example"]; replaces the list (at most 20; [] clears it)' }) },
          { additionalProperties: true },
        ),
        detail: { summary: "Replace the origins public-key payments may return the customer to" },
      },
    );
