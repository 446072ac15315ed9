import type { Network, Token } from "../../../config/index.ts";
import { parseDecimal } from "../../../domain/decimal.ts";
import type { RailContext } from "../../types.ts";
import { fillCost } from "./fillCost.ts";
import { localMinimum } from "./localMinimum.ts";

/**
 * The least the local bridge delivers of `token` on `destination` now (smallest units), from
 * what a fill costs at the chain's current gas price; null when it has no minimum (no fee, or
 * no relayer). Throws when the chain does not answer.
 */
export async function localFillMinimum(ctx: RailContext, destination: Network, token: Token): Promise<bigint | null> {
  const local = ctx.config.bridge.local;
  if (!local || local.feeBps === 0) return null;
  const { gas, gasPrice } = await fillCost(ctx, destination, token);
  return localMinimum({ fillGas: gas, gasPrice, nativeUsd: parseDecimal(ctx.config.bridge.localNativeUsd)!, tokenDecimals: token.decimals, feeBps: local.feeBps });
}
