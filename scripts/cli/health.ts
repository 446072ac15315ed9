import { createChainStatusService } from "../../rails/chainStatus.ts";
import { networkRotation } from "../../rails/providerRotations.ts";
import { providerStates } from "../../rails/rpcRotation/registry.ts";
import { redactMessage } from "../../rails/rpcRotation/redactUrl.ts";
import type { CliContext } from "./context.ts";

/**
 * `cli health`: each enabled chain's head, indexed block and payability, and each of its
 * RPC providers in use or dropped and why — probed once now, as the roles probe them.
 */
export async function health({ db, config }: CliContext): Promise<string> {
  const networks = config.networks.filter((n) => n.enabled);
  if (networks.length === 0) return "No network is enabled (set RPC_URL_<chainId> or RPC_URL_<SHORT_NAME>).";
  await Promise.all(networks.map(async (n) => (await networkRotation(n))?.probeAll()));
  const statuses = await createChainStatusService(config, db).statuses(networks);
  return statuses
    .flatMap((s) => [
      `${s.network.shortName} (${s.network.chainId}): ${s.payable ? "payable" : "NOT payable"}; head ${s.headBlock ?? "?"}, indexed ${s.indexedBlock ?? "?"}${s.error ? `; ${redactMessage(s.error)}` : ""}`,
      ...providerStates(s.network).map(
        (p) => `  ${p.inUse ? "in use " : "DROPPED"} ${p.provider} ${p.reason}${p.head === null ? "" : ` (head ${p.head})`}${p.detail ? `: ${p.detail}` : ""}`,
      ),
    ])
    .join("\n");
}
