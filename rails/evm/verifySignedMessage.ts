import { isHex, verifyMessage, type Address, type Hex } from "viem";

/**
 * Whether `signature` (0x-hex, 65 bytes) is `signer`'s EIP-191 signature of `message`
 * (`personal_sign`, what a browser wallet signs). An externally owned account only: a
 * contract wallet's ERC-1271 answer would need its chain, and a malformed signature is
 * simply not one.
 */
export async function verifySignedMessage(signer: string, message: string, signature: string): Promise<boolean> {
  if (!isHex(signature, { strict: true }) || signature.length !== 132) return false;
  return verifyMessage({ address: signer as Address, message, signature: signature as Hex }).catch(() => false);
}
