import { z } from "zod";
import { envSection } from "./section.ts";
import { url } from "./formats.ts";

export const ratesEnv = envSection("Exchange rates", "Prices in fiat: units of each currency per one US dollar, from a table or an HTTP source.", {
  RATES_PROVIDER: z.enum(["static", "http"]).default("static").describe("Where exchange rates come from: the RATES_STATIC table, or the HTTP source at RATES_URL. Read by: api, cli."),
  RATES_STATIC: z.string().default("").describe('The static table: units of each currency per one US dollar, comma-separated, e.g. `EUR=0.92,NGN=1550` (USD is always 1). Read by: api, cli.'),
  RATES_URL: url(["http:", "https:"])
    .default("https://open.er-api.com/v6/latest/USD")
    .describe("HTTP source answering `{base_code|base: \"USD\", rates: {...}, time_last_update_unix}` (open.er-api.com's shape). Read by: api, cli."),
  RATES_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000).describe("Milliseconds one request to RATES_URL may take. Read by: api, cli."),
  RATES_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300).describe("Seconds fetched rates are reused before the source is asked again. Read by: api, cli."),
  RATES_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(36 * 3600)
    .describe("Seconds: rates older than this (by the source's own timestamp) are stale: shown, never used to price a payment. Read by: api, cli."),
});
