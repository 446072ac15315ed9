import { Elysia, t } from "elysia";
import { loadCheckoutAssets } from "../checkout/checkoutAssets.ts";
import { chooseLanguage } from "../checkout/messages/index.ts";
import { renderNotFoundPage } from "../checkout/pageShell.ts";
import { renderCheckoutPage } from "../checkout/renderCheckoutPage.ts";
import { renderQrSvg } from "../checkout/renderQr.ts";
import { checkoutHeaders, SVG_CSP } from "../checkout/securityHeaders.ts";
import type { ApiDeps } from "../deps.ts";
import { uuidPattern } from "../schemas.ts";
import { loadPublicView } from "../services/publicPaymentViews.ts";


/**
 * The hosted checkout page, `{PUBLIC_BASE_URL}/pay/{paymentId}`: where a merchant sends
 * a customer. It reads only the credential-free view of the payment, renders it on the
 * server, and its script keeps it live over `GET /payments/public/{id}/events`. Assets
 * and the QR code come from the service itself.
 */
export const checkoutRoutes = (deps: ApiDeps) => {
  const assets = loadCheckoutAssets();
  // Behind a proxy that serves this service under a path (PUBLIC_BASE_URL https://shop.example/pay-svc),
  // the page's own URLs carry that path. The page talks to the versioned API of this same service (the CSP allows nothing else).
  const basePath = new URL(deps.config.http.publicBaseUrl).pathname.replace(/\/+$/, "");
  const assetBase = `${basePath}${assets.base}`;
  const apiBase = `${basePath}/api/v1`;
  const headers = (set: { headers: Record<string, unknown> }, extra: Record<string, string>) => Object.assign(set.headers, checkoutHeaders(), extra);

  return new Elysia({ prefix: "/pay", detail: { hide: true } })
    .get(
      "/assets/:version/:file",
      ({ params, set }) => {
        const asset = assets.get(params.version, params.file);
        if (!asset) {
          set.status = 404;
          headers(set, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
          return "Not found";
        }
        headers(set, {
          "Content-Type": asset.contentType,
          // The version is in the path: this content never changes under it.
          "Cache-Control": "public, max-age=31536000, immutable",
          ...(asset.contentType.startsWith("image/svg") ? { "Content-Security-Policy": SVG_CSP } : {}),
        });
        return asset.body;
      },
      { params: t.Object({ version: t.String({ maxLength: 64 }), file: t.String({ maxLength: 64 }) }) },
    )
    .get("/:paymentId/qr.svg", async ({ params, set }) => {
      const view = uuidPattern.test(params.paymentId) ? await loadPublicView(deps, params.paymentId) : undefined;
      // What is due now: the remainder once part has arrived; nothing once the payment is no longer open.
      const uri = view?.remainingPaymentUri;
      if (!uri) {
        set.status = 404;
        headers(set, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
        return "No payment is due here.";
      }
      headers(set, { "Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=300", "Content-Security-Policy": SVG_CSP });
      return renderQrSvg(uri);
    })
    .get("/:paymentId", async ({ params, query, request, set }) => {
      const language = chooseLanguage(request.headers.get("accept-language") ?? undefined, typeof query.lang === "string" ? query.lang : undefined);
      const view = uuidPattern.test(params.paymentId) ? await loadPublicView(deps, params.paymentId) : undefined;
      headers(set, {
        "Content-Type": "text/html; charset=utf-8",
        // The status changes: always ask again.
        "Cache-Control": "no-store",
        "Content-Language": language.code,
        Vary: "Accept-Language",
      });
      if (!view) {
        set.status = 404;
        return renderNotFoundPage(language, assetBase);
      }
      return renderCheckoutPage({ view, language, assets: assetBase, apiBase, basePath, now: Date.now() });
    });
};
