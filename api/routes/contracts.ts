import { Elysia, t } from "elysia";
import { NotFoundError } from "../../domain/errors.ts";
import { railFor } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";

/** The settlement contract of a chain, for wallets and checkout pages (no credentials). */
export const contractRoutes = ({ config }: ApiDeps) =>
  new Elysia({ prefix: "/payments", tags: ["Payments"] }).get(
    "/contract/:chainId",
    ({ params }) => {
      const network = config.networks.find((n) => n.chainId === params.chainId && n.enabled);
      const contract = network && railFor(network)?.contract(network);
      if (!contract) throw new NotFoundError(`No settlement contract on chain ${params.chainId}.`);
      return { success: true, ...contract };
    },
    { params: t.Object({ chainId: t.String({ maxLength: 64 }) }), detail: { summary: "Settlement contract address and ABI for a chain" } },
  );
