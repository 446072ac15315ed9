/**
 * The checkout page's Content-Security-Policy: nothing may load unless named here, and
 * only the service's own scripts, styles and images are (no inline script or style, no
 * third party); requests go only to the service; no other site may frame the page
 * (its wallet button must not be clickjacked); forms post only to the service.
 */
export const CHECKOUT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every checkout response: the policy, no MIME sniffing, and no referrer (the URL holds the payment id). */
export const checkoutHeaders = (csp = CHECKOUT_CSP): Record<string, string> => ({
  "Content-Security-Policy": csp,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
});

/** An SVG opened on its own is a document: it may run nothing and load nothing. */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
