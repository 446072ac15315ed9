import { z } from "zod";
import { normalizeEvmAddress } from "../../domain/evmAddress.ts";

/** The value types the environment sections share: each refuses a bad value with a message naming what it wants. */

export const port = z.coerce.number().int().min(0).max(65535);

/** secp256k1's group order: a private key is 1 to n − 1 (viem refuses anything else when the key is first used). */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export const evmPrivateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
  .refine((v) => BigInt(v) > 0n && BigInt(v) < SECP256K1_ORDER, "is not a valid secp256k1 private key (0, or not below the curve's order: a placeholder?)");

export const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL (${protocols.join(" or ")})`);

/**
 * An EVM address, checksummed once here. Mixed case must carry a valid EIP-55 checksum:
 * a mistyped digit in a checksummed address is caught at start instead of sending money
 * to an address nobody holds.
 */
export const evmAddress = z.string().transform((value, ctx) => {
  const address = normalizeEvmAddress(value);
  if (address) return address;
  ctx.addIssue({ code: "custom", message: "must be an EVM address (0x and 40 hex digits; in mixed case, with a valid EIP-55 checksum)" });
  return z.NEVER;
});

/** `on` or `off`. */
export const onOff = z.enum(["on", "off"]);
