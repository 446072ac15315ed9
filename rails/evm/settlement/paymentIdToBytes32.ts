import type { Hex } from "viem";
import { InvalidPaymentIdError } from "./errors.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The on-chain form of a payment id: the UUID's 16 bytes left-padded to 32
 * (`0x` + 32 zeros + the UUID's hex digits, lowercase). Throws `InvalidPaymentIdError`
 * for anything but a dashed UUID.
 */
export function paymentIdToBytes32(uuid: string): Hex {
  if (!uuidPattern.test(uuid)) throw new InvalidPaymentIdError(uuid);
  return `0x${"0".repeat(32)}${uuid.replaceAll("-", "").toLowerCase()}`;
}
