import { Elysia, t } from "elysia";
import { paymentIntentTypes, settlementDomain } from "../../rails/evm/settlement/index.ts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { ApiDeps } from "../deps.ts";
import type { Address } from "viem";

/** The settlement contract of a chain, for wallets and checkout pages (no credentials). */
export const contractRoutes = ({ config }: ApiDeps) =>
  new Elysia({ prefix: "/payments", tags: ["Payments"] }).get(
    "/contract/:chainId",
    ({ params }) => {
      const network = config.networks.find((n) => n.chainId === params.chainId && n.enabled && n.settlementContract);
      if (!network) throw new NotFoundError(`No settlement contract on chain ${params.chainId}.`);
      const address = network.settlementContract as Address;
      return {
        success: true,
        chainId: network.chainId,
        network: network.shortName,
        contractAddress: address,
        forwarderFactory: network.forwarderFactory,
        abi: paymentSettlementAbi,
        eip712: { domain: { ...settlementDomain(Number(network.chainId), address) }, types: paymentIntentTypes, primaryType: "PaymentIntent" },
      };
    },
    { params: t.Object({ chainId: t.String({ maxLength: 64 }) }), detail: { summary: "Settlement contract address and ABI for a chain" } },
  );
