import { getAddress, isAddress, isHex, type Address, type Hex } from "viem";
import type { Network } from "../../../config/types.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";
import { RefundRefusedError, RefundSignatureError, ValidationError } from "../../../domain/errors.ts";
import type { MerchantSignedRefunds, SignedRefundSubmission } from "../../ports/merchantSignedRefunds.ts";
import { evmClient } from "../client.ts";
import { eip3009Abi, eip3009Domain, TRANSFER_WITH_AUTHORIZATION_TYPES, type Eip3009Authorization } from "./eip3009.ts";

/** How long a prepared authorization stays valid: time for a person to sign it, not for it to lie about. */
export const SIGNING_WINDOW_SECONDS = 3600n;
/** What must be left of an authorization's validity when it is handed in: time for the relay to be mined. */
export const RELAY_MARGIN_SECONDS = 120n;

const now = () => BigInt(Math.floor(Date.now() / 1000));
const randomNonce = (): Hex => `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`;

async function domainOf(network: Network, payment: PaymentRow, timeoutMs: number) {
  const domain = await eip3009Domain(evmClient(network, timeoutMs), getAddress(payment.tokenAddress), Number(network.chainId));
  if (!domain) {
    throw new RefundRefusedError(
      `This payment's token (${payment.tokenSymbol}) cannot be moved by a signed authorization (it has no EIP-3009): the merchant sends the refund from its wallet itself.`,
      "refund_not_signable",
    );
  }
  return domain;
}

const typedData = (domain: Awaited<ReturnType<typeof domainOf>>, a: Eip3009Authorization) => ({
  domain,
  types: TRANSFER_WITH_AUTHORIZATION_TYPES,
  primaryType: "TransferWithAuthorization" as const,
  message: a,
});

/** The submitted authorization, each field checked (named in the error when wrong). */
function parseAuthorization(submission: SignedRefundSubmission, from: string): { authorization: Eip3009Authorization; signature: Hex } {
  const a = submission.authorization;
  if (!a || typeof a !== "object") throw new ValidationError("authorization", "Invalid field 'authorization': the signed message (from, to, value, validAfter, validBefore, nonce) is required");
  const address = (field: "from" | "to"): Address => {
    const value = a[field];
    if (typeof value !== "string" || !isAddress(value, { strict: false })) throw new ValidationError(`authorization.${field}`, `Invalid field 'authorization.${field}': an EVM address`);
    return getAddress(value);
  };
  const uint = (field: "value" | "validAfter" | "validBefore"): bigint => {
    const value = a[field];
    if ((typeof value !== "string" && typeof value !== "number") || !/^\d{1,78}$/.test(String(value))) throw new ValidationError(`authorization.${field}`, `Invalid field 'authorization.${field}': a whole number, as a decimal string`);
    return BigInt(value);
  };
  const nonce = a.nonce;
  if (typeof nonce !== "string" || !isHex(nonce) || nonce.length !== 66) throw new ValidationError("authorization.nonce", "Invalid field 'authorization.nonce': 32 bytes, 0x-prefixed hex");
  const signature = submission.signature;
  if (typeof signature !== "string" || !isHex(signature) || signature.length < 132) throw new ValidationError("signature", "Invalid field 'signature': the wallet's signature of the typed data, 0x-prefixed hex");
  const authorization = { from: address("from"), to: address("to"), value: uint("value"), validAfter: uint("validAfter"), validBefore: uint("validBefore"), nonce: nonce.toLowerCase() as Hex };
  if (authorization.from !== getAddress(from)) throw new ValidationError("authorization.from", `Invalid field 'authorization.from': must be ${getAddress(from)}, the wallet that received the payment`);
  return { authorization, signature: signature as Hex };
}

/**
 * EVM: the merchant's wallet signs an EIP-3009 `TransferWithAuthorization` of the payment's
 * token (USDC's) to the refund's address; anyone may submit it, so the operator does, paying
 * the gas, and no key of the merchant's is ever held here. The token enforces the signature,
 * the amount, the window and the nonce's single use.
 */
export const evmMerchantSignedRefunds: MerchantSignedRefunds = {
  async prepare(_config, network, payment, order, timeoutMs) {
    const domain = await domainOf(network, payment, timeoutMs);
    const authorization: Eip3009Authorization = {
      from: getAddress(order.from),
      to: getAddress(order.to),
      value: order.amount,
      validAfter: 0n,
      validBefore: now() + SIGNING_WINDOW_SECONDS,
      nonce: randomNonce(),
    };
    const data = typedData(domain, authorization);
    return {
      from: authorization.from,
      to: authorization.to,
      amount: order.amount,
      validUntil: new Date(Number(authorization.validBefore) * 1000),
      format: "eip712",
      // As a wallet's `eth_signTypedData_v4` takes it: numbers as decimal strings.
      typedData: { ...data, types: { EIP712Domain: EIP712_DOMAIN_FIELDS, ...data.types }, message: { ...authorization, value: String(authorization.value), validAfter: "0", validBefore: String(authorization.validBefore) } },
    };
  },

  async accept(_config, network, payment, from, submission, timeoutMs) {
    const { authorization, signature } = parseAuthorization(submission, from);
    if (authorization.validAfter > now()) throw new ValidationError("authorization.validAfter", "Invalid field 'authorization.validAfter': the authorization is not valid yet");
    if (authorization.validBefore < now() + RELAY_MARGIN_SECONDS) {
      throw new ValidationError("authorization.validBefore", `Invalid field 'authorization.validBefore': the authorization expires within ${RELAY_MARGIN_SECONDS} seconds (or has): prepare a new one`);
    }
    const domain = await domainOf(network, payment, timeoutMs);
    const client = evmClient(network, timeoutMs);
    // viem checks a contract wallet's signature too (ERC-1271, ERC-6492), as the token would.
    const valid = await client.verifyTypedData({ address: authorization.from, signature, ...typedData(domain, authorization) }).catch(() => false);
    if (!valid) throw new RefundSignatureError(`Invalid field 'signature': not ${authorization.from}'s signature of this authorization for the token ${domain.verifyingContract} on chain ${network.chainId}.`);
    const used = await client.readContract({ address: domain.verifyingContract, abi: eip3009Abi, functionName: "authorizationState", args: [authorization.from, authorization.nonce] });
    if (used) throw new ValidationError("authorization.nonce", "Invalid field 'authorization.nonce': this authorization was already used or cancelled on chain");
    return {
      to: authorization.to,
      amount: authorization.value,
      signed: { format: "eip3009", from: authorization.from, validAfter: String(authorization.validAfter), validBefore: String(authorization.validBefore), nonce: authorization.nonce, signature },
    };
  },
};

const EIP712_DOMAIN_FIELDS = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
];
