import { z } from "zod";
import { bridgeEnv } from "./env/bridge.ts";
import { dashboardEnv } from "./env/dashboard.ts";
import { keysEnv } from "./env/keys.ts";
import { networksEnv } from "./env/networks.ts";
import { operationsEnv } from "./env/operations.ts";
import { paymentsEnv } from "./env/payments.ts";
import { ratesEnv } from "./env/rates.ts";
import { serviceEnv } from "./env/service.ts";
import { storageEnv } from "./env/storage.ts";
import { webhooksEnv } from "./env/webhooks.ts";

export { MAX_LATE_SCAN_BLOCKS } from "./env/networks.ts";
export { RELAY_DEPOSIT_LAG_MS } from "./env/bridge.ts";
export { perNetworkVariables, type PerNetworkVariable } from "./env/perNetwork.ts";
export type { EnvSection } from "./env/section.ts";

/**
 * The service's own environment variables, in one schema built from its sections (one file
 * each under `config/env/`, in the order `docs/configuration.md` shows them). Each rail adds
 * its own section (`RailConfigSection`, registered in `plugins/`): `plugins/config.ts` has the
 * whole schema. Per-network variables (`RPC_URL_<chainId>`, …) are read by pattern in
 * `buildNetworks` from the same env record; `perNetworkVariables` documents them.
 */
export const coreEnvSections = [serviceEnv, storageEnv, networksEnv, keysEnv, paymentsEnv, webhooksEnv, ratesEnv, bridgeEnv, dashboardEnv, operationsEnv] as const;

export const envSchema = z.object({
  ...serviceEnv.shape,
  ...storageEnv.shape,
  ...networksEnv.shape,
  ...keysEnv.shape,
  ...paymentsEnv.shape,
  ...webhooksEnv.shape,
  ...ratesEnv.shape,
  ...bridgeEnv.shape,
  ...dashboardEnv.shape,
  ...operationsEnv.shape,
});

export type Env = z.infer<typeof envSchema>;
