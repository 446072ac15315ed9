import { randomBytes } from "node:crypto";

/**
 * Illustrative fiat rates (units per US dollar) so fiat-priced payments work in the
 * sandbox out of the box. Not market rates: production sets RATES_STATIC or uses the
 * HTTP provider. An operator's own RATES_STATIC wins.
 */
export const SANDBOX_RATES = "EUR=0.92,GBP=0.79,NGN=1550,KES=129,GHS=15.5,ZAR=18.2,INR=84,BRL=5.6,MXN=20,CAD=1.4";

/**
 * The roles' environment in the sandbox: what the operator set (blank counts as unset, as
 * everywhere), over the sandbox's own defaults (`chains`: what the rails' sandboxes set, their
 * keys; `sandboxChains.ts`), under what this start made (its database, Redis and networks
 * file). Every role's secrets are here: `npm start` gives each role only its own (`roleEnv.ts`).
 */
export function sandboxEnv(
  given: Record<string, string>,
  made: { DATABASE_URL: string; REDIS_URL: string; NETWORKS_FILE: string },
  chains: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    ...chains,
    RATES_STATIC: SANDBOX_RATES,
    // The sandbox's operator token (metrics, queue dashboard): a fresh one per start unless set.
    OPERATOR_TOKEN: randomBytes(24).toString("hex"),
    ...given,
    APP_ENV: "development",
    ...made,
  };
}
