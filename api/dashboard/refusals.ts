import { AppError } from "../../domain/errors.ts";
import { html } from "./html.ts";
import { plainPage } from "./layout.ts";
import { htmlPage } from "./respond.ts";

const titles: Record<number, string> = { 400: "Check the form", 401: "Sign in again", 403: "Not allowed", 404: "Not found", 409: "Already decided", 429: "Too many attempts" };

/** An error as a dashboard page (never JSON, never internals), with a way back. */
export function refusalPage(assets: string, status: number, message: string, headers: Record<string, string> = {}): Response {
  const body = plainPage(assets, {
    title: titles[status] ?? "Something went wrong",
    body: html`<p role="alert">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  });
  return htmlPage(body, { status, headers });
}

/**
 * Runs a dashboard handler; a typed error (bad input, not found, a refund refused…) becomes
 * a page with its status and message rather than the API's JSON. Anything else propagates
 * to the API's one error handler (logged, 500/503 without internals).
 */
export async function pageOrRefusal(assets: string, run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError) return refusalPage(assets, error.status, error.message, error.headers);
    throw error;
  }
}
