import { ceilDiv, type Decimal } from "../../../domain/decimal.ts";

/** Wei per whole coin of an EVM chain's native currency. */
const WEI_DECIMALS = 18;

/**
 * The least the local bridge delivers, in the destination token's smallest units, derived
 * as a relayer would: its fee (`feeBps` of the amount) must cover what the fill costs it,
 * `fillGas` at `gasPrice` wei of the destination chain's native coin priced at `nativeUsd`
 * (USD per whole coin), the token counted at 1 USD (a USD stablecoin). The cost is rounded
 * up to the token's smallest unit, and so is the amount whose fee covers it. Null when the
 * relayer takes no fee: it fills at a loss whatever the amount, so no amount is too small.
 */
export function localMinimum(input: { fillGas: bigint; gasPrice: bigint; nativeUsd: Decimal; tokenDecimals: number; feeBps: number }): bigint | null {
  const { fillGas, gasPrice, nativeUsd, tokenDecimals, feeBps } = input;
  if (feeBps <= 0) return null;
  const cost = ceilDiv(fillGas * gasPrice * nativeUsd.units * 10n ** BigInt(tokenDecimals), 10n ** BigInt(WEI_DECIMALS + nativeUsd.scale));
  const minimum = ceilDiv(cost * 10_000n, BigInt(feeBps));
  return minimum > 0n ? minimum : 1n;
}
