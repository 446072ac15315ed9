import { eip3009ABI } from "@x402/evm";
import { encodeFunctionData, getAddress, parseAbiItem, parseSignature, size, type Address, type Hex, type PublicClient } from "viem";
import type { TransferOutRow } from "../../../db/schema/index.ts";

/** USDC's EIP-3009 surface and its EIP-712 types, as x402's EVM package declares them (what a relayed refund calls and signs). */
export { eip3009ABI as eip3009Abi, authorizationTypes as TRANSFER_WITH_AUTHORIZATION_TYPES } from "@x402/evm";

export type Eip3009Authorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

/**
 * The token's EIP-712 domain, or null when it has no EIP-3009 (no `version()`, no
 * `authorizationState`: USDT, most tokens but USDC and EURC).
 */
export async function eip3009Domain(client: PublicClient, token: Address, chainId: number) {
  const [name, version, state] = await Promise.all([
    client.readContract({ address: token, abi: eip3009ABI, functionName: "name" }),
    client.readContract({ address: token, abi: eip3009ABI, functionName: "version" }).catch(() => null),
    client.readContract({ address: token, abi: eip3009ABI, functionName: "authorizationState", args: [token, `0x${"00".repeat(32)}`] }).catch(() => null),
  ]);
  if (version === null || state === null) return null;
  return { name, version, chainId, verifyingContract: getAddress(token) };
}

/** The call that relays a signed authorization: by (v, r, s) for a 65-byte signature (every USDC), else by bytes (a contract wallet's, USDC v2.2). */
export function relayCalldata(a: Eip3009Authorization, signature: Hex): Hex {
  if (size(signature) === 65) {
    const { v, r, s, yParity } = parseSignature(signature);
    return encodeFunctionData({ abi: eip3009ABI, functionName: "transferWithAuthorization", args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, Number(v ?? BigInt(yParity + 27)), r, s] });
  }
  return encodeFunctionData({ abi: eip3009ABI, functionName: "transferWithAuthorization", args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature] });
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

const AUTHORIZATION_USED = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
/** How far back a used authorization is looked for: it was signed at most an hour before the relay (a few thousand blocks on fast chains). */
const LOOKBACK_BLOCKS = 5_000n;

/**
 * The transaction (and block) that used the row's authorization, at `atBlock` or before, if one
 * did: the token emits `AuthorizationUsed` once per authorization, whoever submitted it.
 */
export async function authorizationUsedBy(client: PublicClient, row: Pick<TransferOutRow, "tokenAddress" | "merchantSigned">, atBlock: bigint): Promise<{ txHash: string; blockNumber: bigint } | null> {
  const signed = row.merchantSigned!;
  const logs = await client.getLogs({
    address: getAddress(row.tokenAddress),
    event: AUTHORIZATION_USED,
    args: { authorizer: getAddress(signed.from!), nonce: signed.nonce as Hex },
    fromBlock: atBlock > LOOKBACK_BLOCKS ? atBlock - LOOKBACK_BLOCKS : 0n,
    toBlock: atBlock,
  });
  const log = logs.find((l) => !l.removed);
  return log?.transactionHash && log.blockNumber !== null ? { txHash: log.transactionHash, blockNumber: log.blockNumber } : null;
}
