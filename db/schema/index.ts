/** The drizzle schema, split by table group; drizzle-kit reads this folder. */
export * from "./bridges.ts";
export * from "./events.ts";
export * from "./localBridge.ts";
export * from "./merchants.ts";
export * from "./payments.ts";
export * from "./transfers.ts";
export * from "./replayed.ts";
export * from "./ingestWatch.ts";
export * from "./refunds.ts";
export * from "./leases.ts";
export * from "./indexedSources.ts";
export * from "./dashboard.ts";
export * from "./x402.ts";
