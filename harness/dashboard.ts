import { expect } from "bun:test";
import { createLogger } from "../config/logger.ts";
import type { DashboardRole } from "../domain/dashboardRole.ts";
import { commands } from "../scripts/cli/commands.ts";
import type { TestApi } from "./testApi.ts";

/** The origin `app.handle` requests are made on: the dashboard's own. */
export const OWN_ORIGIN = "http://localhost";

export type DashboardResponse = { status: number; headers: Headers; text: string };

/** A request to the dashboard through `app.handle`: a cookie, a form body (urlencoded), an Origin. */
export async function dashboardRequest(
  api: TestApi,
  path: string,
  init: { method?: string; cookie?: string; form?: Record<string, string>; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<DashboardResponse> {
  const method = init.method ?? (init.form ? "POST" : "GET");
  const headers: Record<string, string> = { ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  if (method !== "GET" && init.origin !== null) headers.origin = init.origin ?? OWN_ORIGIN;
  if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
  const response = await api.app.handle(
    new Request(`http://localhost${path}`, { method, headers, body: init.form ? new URLSearchParams(init.form).toString() : undefined, redirect: "manual" }),
  );
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** `npm run cli -- user invite` as the operator runs it: the printed link's path. */
export async function inviteLink(api: TestApi, merchantId: string, email: string, role: DashboardRole): Promise<string> {
  const output = await commands["user invite"]!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger: createLogger({ level: "silent" }) }, { merchant: merchantId, email, role });
  const link = /https?:\/\/\S+(\/dashboard\/invite\/[A-Za-z0-9_-]+)/.exec(output);
  expect(link).not.toBeNull();
  return link![1]!;
}

/** The session cookie a sign-in sets (name=value), or null. */
export const sessionCookieOf = (response: DashboardResponse): string | null => {
  const set = response.headers.get("set-cookie");
  return set ? set.split(";")[0]! : null;
};

/** The CSRF token a signed-in page carries in its forms. */
export const csrfOf = (page: DashboardResponse): string => {
  const found = /name="csrf" value="([^"]+)"/.exec(page.text);
  expect(found).not.toBeNull();
  return found![1]!;
};

export type DashboardUser = { email: string; password: string; cookie: string; csrf: string };

/** A team member invited by the CLI, who accepted and signed in: their cookie and CSRF token. */
export async function signedInUser(api: TestApi, merchantId: string, email: string, role: DashboardRole, password = "correct horse battery staple"): Promise<DashboardUser> {
  const link = await inviteLink(api, merchantId, email, role);
  const accepted = await dashboardRequest(api, link, { form: { name: email, password, confirm: password } });
  expect(accepted.status).toBe(303);
  const signedIn = await dashboardRequest(api, "/dashboard/sign-in", { form: { email, password } });
  expect(signedIn.status).toBe(303);
  const cookie = sessionCookieOf(signedIn)!;
  const page = await dashboardRequest(api, "/dashboard/payments", { cookie });
  expect(page.status).toBe(200);
  return { email, password, cookie, csrf: csrfOf(page) };
}
