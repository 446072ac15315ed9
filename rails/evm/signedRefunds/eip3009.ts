import { encodeFunctionData, getAddress, parseAbi, parseSignature, size, type Address, type Hex, type PublicClient } from "viem";

/** USDC's EIP-3009 and EIP-712 surface, as much of it as a relayed refund needs. */
export const eip3009Abi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export type Eip3009Authorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

/**
 * The token's EIP-712 domain, or null when it has no EIP-3009 (no `version()`, no
 * `authorizationState`: USDT, most tokens but USDC and EURC).
 */
export async function eip3009Domain(client: PublicClient, token: Address, chainId: number) {
  const [name, version, state] = await Promise.all([
    client.readContract({ address: token, abi: eip3009Abi, functionName: "name" }),
    client.readContract({ address: token, abi: eip3009Abi, functionName: "version" }).catch(() => null),
    client.readContract({ address: token, abi: eip3009Abi, functionName: "authorizationState", args: [token, `0x${"00".repeat(32)}`] }).catch(() => null),
  ]);
  if (version === null || state === null) return null;
  return { name, version, chainId, verifyingContract: getAddress(token) };
}

/** The call that relays a signed authorization: by (v, r, s) for a 65-byte signature (every USDC), else by bytes (a contract wallet's, USDC v2.2). */
export function relayCalldata(a: Eip3009Authorization, signature: Hex): Hex {
  if (size(signature) === 65) {
    const { v, r, s, yParity } = parseSignature(signature);
    return encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, Number(v ?? BigInt(yParity + 27)), r, s] });
  }
  return encodeFunctionData({ abi: eip3009Abi, functionName: "transferWithAuthorization", args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature] });
}

/** The authorization a transfer row keeps (`merchantSigned`), back in its types. */
export function storedAuthorization(signed: Record<string, string>, to: string, amount: bigint): { authorization: Eip3009Authorization; signature: Hex } {
  return {
    authorization: {
      from: getAddress(signed.from!),
      to: getAddress(to),
      value: amount,
      validAfter: BigInt(signed.validAfter!),
      validBefore: BigInt(signed.validBefore!),
      nonce: signed.nonce as Hex,
    },
    signature: signed.signature as Hex,
  };
}
