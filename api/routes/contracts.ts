import { Elysia, t } from "elysia";
import type { Network } from "../../config/index.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { methodFor } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";

/** A chain id as a path names it: decimal as the catalogue writes it, or 0x-hex as wallets do (`0x2105` is 8453). */
function chainIdOfPath(value: string): string {
  return /^0x[0-9a-fA-F]{1,16}$/.test(value) ? BigInt(value).toString() : value;
}

/**
 * The client SDK's `contractInfo`: where to send `splitPayment` and the ABI to encode it
 * with, beside the answer's own fields (null address where the rail has no contract).
 */
function contractInfo(network: Network, contract: Record<string, unknown>) {
  return { address: contract.contractAddress ?? null, abi: contract.abi ?? null, chainId: network.chainId, network: network.shortName };
}

/** The settlement contract of a chain, for wallets and checkout pages (no credentials). */
export const contractRoutes = ({ config }: ApiDeps) =>
  new Elysia({ prefix: "/payments", tags: ["Payments"] }).get(
    "/contract/:chainId",
    ({ params }) => {
      const chainId = chainIdOfPath(params.chainId);
      const network = config.networks.find((n) => n.chainId === chainId && n.enabled);
      const contract = network && methodFor(network, "payment")?.contract?.(network);
      if (!network || !contract) throw new NotFoundError(`No settlement contract on chain ${params.chainId}.`);
      return { success: true, ...contract, contractInfo: contractInfo(network, contract) };
    },
    {
      params: t.Object({ chainId: t.String({ maxLength: 64 }) }),
      detail: { summary: "Settlement contract address and ABI for a chain (decimal or 0x-hex chain id); `contractInfo` for the client SDK" },
    },
  );
