import { type Address, type Hex, concat, keccak256, toHex } from "viem";
import { sign } from "viem/accounts";
import { paymentIntentTypes, settlementDomain } from "./settlementDomain.ts";
import type { PaymentIntent } from "./types.ts";

export type SignPaymentIntentParameters = {
  /** Key of the settlement contract's `operator`. */
  operatorPrivateKey: Hex;
  chainId: number;
  settlementAddress: Address;
  intent: PaymentIntent;
};

const word = (hex: string) => hex.slice(2).toLowerCase().padStart(64, "0");
const MAX_UINT256 = 2n ** 256n - 1n;
const uint256 = (name: string, value: bigint) => {
  if (value < 0n || value > MAX_UINT256) throw new RangeError(`${name}: not a uint256`);
  return value.toString(16).padStart(64, "0");
};
const address = (name: string, value: string) => {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new TypeError(`${name}: not an address`);
  return word(value);
};

const DOMAIN_TYPE_HASH = keccak256(toHex("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"));
const INTENT_TYPE_HASH = keccak256(toHex(`PaymentIntent(${paymentIntentTypes.PaymentIntent.map((f) => `${f.type} ${f.name}`).join(",")})`));

/** Domain separators by chain and contract: the same for every intent a deployment signs. */
const separators = new Map<string, Hex>();
function domainSeparator(chainId: number, settlementAddress: Address): Hex {
  const cacheKey = `${chainId}:${settlementAddress.toLowerCase()}`;
  let separator = separators.get(cacheKey);
  if (!separator) {
    const domain = settlementDomain(chainId, settlementAddress);
    separator = keccak256(
      `0x${word(DOMAIN_TYPE_HASH)}${word(keccak256(toHex(domain.name)))}${word(keccak256(toHex(domain.version)))}${uint256("chainId", BigInt(chainId))}${word(domain.verifyingContract)}`,
    );
    separators.set(cacheKey, separator);
  }
  return separator;
}

/**
 * The EIP-712 digest of `intent` (what viem's `hashTypedData` computes), with the domain
 * separator and type hash computed once and the struct's static fields packed directly:
 * signing was a fifth of a payment creation's CPU.
 */
export function paymentIntentDigest(chainId: number, settlementAddress: Address, intent: PaymentIntent): Hex {
  if (!/^0x[0-9a-fA-F]{64}$/.test(intent.paymentId)) throw new TypeError("paymentId: not a bytes32");
  const structHash = keccak256(
    `0x${word(INTENT_TYPE_HASH)}${word(intent.paymentId)}${address("merchant", intent.merchant)}${address("token", intent.token)}${uint256("amount", intent.amount)}${uint256("fee", intent.fee)}${address("feeRecipient", intent.feeRecipient)}${uint256("deadline", intent.deadline)}`,
  );
  return keccak256(concat(["0x1901", domainSeparator(chainId, settlementAddress), structHash]));
}

/** The operator's 65-byte EIP-712 signature over `intent`, as `PaymentSettlement.pay` expects it (deterministic, RFC 6979). */
export function signPaymentIntent(parameters: SignPaymentIntentParameters): Promise<Hex> {
  const { operatorPrivateKey, chainId, settlementAddress, intent } = parameters;
  return sign({ hash: paymentIntentDigest(chainId, settlementAddress, intent), privateKey: operatorPrivateKey, to: "hex" });
}
