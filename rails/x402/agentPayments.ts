import type { x402Facilitator } from "@x402/core/facilitator";
import { modeOfNetwork, type Config } from "../../config/index.ts";
import type { AgentPayments } from "../ports/agentPayments.ts";
import { x402ChainOf } from "./chains.ts";
import { buildFacilitator } from "./facilitator.ts";
import { networkNamed, x402Names, x402Networks } from "./networkNames.ts";
import { checkOffer } from "./offer.ts";
import { apiSigners, operatorSigners } from "./signers.ts";

// The API's facilitator, one per configuration: its signers only read (the worker settles).
const facilitators = new WeakMap<Config, x402Facilitator>();
function apiFacilitator(config: Config): x402Facilitator {
  let facilitator = facilitators.get(config);
  if (!facilitator) {
    facilitator = buildFacilitator(config, apiSigners(config));
    facilitators.set(config, facilitator);
  }
  return facilitator;
}

/**
 * The x402 facilitator as the service runs it (`ports/agentPayments.ts`): x402's `exact`
 * scheme per network type (`chains.ts`), the merchant's offer (`offer.ts`), read-only signers
 * in the API and the operators' in the worker (`signers.ts`).
 */
export const x402AgentPayments: AgentPayments = {
  networks: x402Networks,
  networkNamed,
  on: x402ChainOf,
  checkOffer,
  verify: (config, payload, requirements) => apiFacilitator(config).verify(payload, requirements),
  async supported(config, mode) {
    // The networks of the credential's mode only: a test key's resource server offers test chains.
    // Solana's kinds name the operator's address as `extra.feePayer`: the transfer's fee payer.
    // Not one whose payments the operator could not settle (`settlerProblem.ts`).
    const networks = x402Networks(config).filter((n) => modeOfNetwork(n) === mode);
    const settles = await Promise.all(networks.map(async (n) => (await x402ChainOf(n).settlerProblem(config, n)) === null));
    const names = new Set(networks.filter((_, i) => settles[i]).flatMap((n) => x402Names(n)));
    const supported = apiFacilitator(config).getSupported();
    return { ...supported, kinds: supported.kinds.filter((k) => names.has(k.network)) };
  },
  settler(config, databaseUrl) {
    // Built on the first settlement: on Solana the operator's key is read then.
    let facilitator: Promise<x402Facilitator> | undefined;
    const facilitatorOf = () => (facilitator ??= operatorSigners(config).then((signers) => buildFacilitator(config, signers)));
    return (network, row, { payment, recordSigned }) => x402ChainOf(network).settle({ config, databaseUrl, facilitator: facilitatorOf, recordSigned, payment }, network, row);
  },
};
