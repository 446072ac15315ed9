import { Histogram } from "prom-client";
import { registry } from "./registry.ts";

/** API latency, by route template (never the raw path: ids would explode the series) and status class. */
export const httpRequestDuration = new Histogram({
  name: "stablepay_http_request_duration_seconds",
  help: "Time from receiving an API request to answering it, by method, route template and status class (2xx, 4xx, …).",
  labelNames: ["method", "route", "status_class"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** `200` → `2xx`; anything out of range is `unknown`. */
export const statusClass = (status: number) => (status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : "unknown");
