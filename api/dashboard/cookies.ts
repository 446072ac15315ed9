import type { Mode } from "../../domain/mode.ts";

/** The session cookie (HttpOnly: scripts never read it) and the test/live choice. */
export const SESSION_COOKIE = "sp_dashboard";
export const MODE_COOKIE = "sp_dashboard_mode";

/** A request's cookies by name (the first of a repeated name). */
export function cookiesOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (request.headers.get("cookie") ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at < 1) continue;
    const name = pair.slice(0, at).trim();
    if (!(name in out)) out[name] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

const attributes = (secure: boolean, maxAgeSeconds: number | null) =>
  ["Path=/dashboard", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : []), ...(maxAgeSeconds === null ? [] : [`Max-Age=${maxAgeSeconds}`])].join("; ");

/** The session cookie: no Max-Age beyond the absolute timeout; the server ends it sooner when idle. */
export const sessionCookie = (token: string, secure: boolean, maxAgeSeconds: number) => `${SESSION_COOKIE}=${token}; ${attributes(secure, maxAgeSeconds)}`;

export const clearedSessionCookie = (secure: boolean) => `${SESSION_COOKIE}=; ${attributes(secure, 0)}`;

export const modeCookie = (mode: Mode, secure: boolean) => `${MODE_COOKIE}=${mode}; ${attributes(secure, 365 * 86_400)}`;

/** The mode the dashboard shows: the cookie's, else live in production and test elsewhere. */
export const modeOf = (request: Request, production: boolean): Mode => {
  const chosen = cookiesOf(request)[MODE_COOKIE];
  return chosen === "test" || chosen === "live" ? chosen : production ? "live" : "test";
};
