import { privateKeyToAddress } from "viem/accounts";
import { ConfigError } from "./configError.ts";
import type { Env } from "./env.ts";

/**
 * The EVM operator's address: derived from its key where this role holds it, else
 * OPERATOR_ADDRESS. A key and an address that disagree are a mistake caught at start (the API
 * would report one account's gas while the worker spends another's).
 */
export function evmOperatorAddress(e: Env): `0x${string}` | null {
  const keyAddress = e.OPERATOR_PRIVATE_KEY ? privateKeyToAddress(e.OPERATOR_PRIVATE_KEY as `0x${string}`) : null;
  if (keyAddress && e.OPERATOR_ADDRESS && keyAddress !== e.OPERATOR_ADDRESS) {
    throw new ConfigError(`OPERATOR_ADDRESS: ${e.OPERATOR_ADDRESS} is not the address of OPERATOR_PRIVATE_KEY (${keyAddress})`);
  }
  return keyAddress ?? (e.OPERATOR_ADDRESS as `0x${string}` | undefined) ?? null;
}
