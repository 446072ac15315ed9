import type { Network } from "../../config/index.ts";
import { chainFor } from "../../rails/index.ts";
import { unreceivableAddresses } from "../../rails/unreceivableAddresses.ts";

/** The address to store (normalized), or why it is refused, in words that follow the address's name. */
export type SettlementWalletCheck = { address: string } | { refused: string };

/**
 * Whether sweeps and settlements may be sent to `given` on `network`: an address of the
 * network's format, not one tokens never come back from (the null address, a token's own
 * contract, the service's contracts), and, where the chain can be read, one whose funds could
 * be spent (Solana: a wallet, not a token account). The operator's CLI and the dashboard both
 * ask this. Rejects when the chain cannot be read now.
 */
export async function checkSettlementWallet(network: Network, given: string, timeoutMs = 20_000): Promise<SettlementWalletCheck> {
  const chain = chainFor(network);
  if (!chain) return { refused: `not an address of a network this service runs` };
  const address = chain.normalizeAddress(given);
  if (!address) return { refused: `not a valid ${chain.addressDescription}` };
  if (unreceivableAddresses(network).has(address)) {
    return { refused: `tokens sent to ${address} cannot come back (the null address, a token's own contract or the service's contracts)` };
  }
  if (network.enabled) {
    const problem = await chain.settlementWalletProblem(network, address, timeoutMs);
    if (problem) return { refused: `sweeps sent to ${address} could not be spent: ${problem}` };
  }
  return { address };
}
