import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { EVM_NETWORK_CHAIN_ID_MAP as v1ChainIds } from "@x402/evm/v1";
import { getAddress, isAddress } from "viem";
import { modeOfNetwork, type Config, type Mode, type Network, type Token } from "../../config/index.ts";
import { x402Networks } from "./facilitator.ts";

/** An authorization the merchant offered, as the facilitator will settle it. */
export type X402Offer = {
  network: Network;
  token: Token;
  /** Checksummed addresses. */
  payer: string;
  /** The network's settlement contract: the authorization pays it, and it passes the money on. */
  payTo: string;
  /** Where the contract sends the amount less the service fee: the merchant's settlement wallet there. */
  merchantWallet: string;
  /** Smallest units of `token`. */
  amount: bigint;
  /** EIP-3009 nonce (bytes32 hex). */
  nonce: string;
};

export type OfferCheck = { ok: true; offer: X402Offer } | { ok: false; reason: string; message: string; payer?: string };

const refuse = (reason: string, message: string, payer?: string): OfferCheck => ({ ok: false, reason, message, payer });
const same = (a: unknown, b: unknown) => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/** The chain id an x402 network names: `eip155:<id>` (v2) or a v1 name (`base-sepolia`); null for any other. */
export function chainIdOf(network: string): string | null {
  const caip = /^eip155:(\d+)$/.exec(network);
  if (caip) return caip[1]!;
  const v1 = (v1ChainIds as Record<string, number>)[network];
  return v1 === undefined ? null : String(v1);
}

/**
 * Whether the requirements are ones this merchant offers: the payer controls what reaches
 * the facilitator (the requirements the resource server matched, the `accepted` it signed
 * under), so nothing is taken on trust. The network must be one the facilitator serves in the
 * credential's mode, the asset a token of it, `payTo` its settlement contract (which pays the
 * merchant's settlement wallet there, less the service fee); the payload's `accepted` (v2) must be these requirements; the payload an EIP-3009
 * authorization paying exactly that.
 */
export function checkOffer(config: Config, mode: Mode, wallets: ReadonlyMap<string, string>, payload: PaymentPayload, requirements: PaymentRequirements): OfferCheck {
  const authorization = (payload.payload as { authorization?: Record<string, unknown> } | undefined)?.authorization;
  const payer = typeof authorization?.from === "string" && isAddress(authorization.from) ? getAddress(authorization.from) : undefined;
  if (requirements.scheme !== "exact") return refuse("unsupported_scheme", `Scheme ${String(requirements.scheme)} is not supported (exact only).`, payer);
  const chainId = typeof requirements.network === "string" ? chainIdOf(requirements.network) : null;
  const network = chainId === null ? undefined : x402Networks(config).find((n) => n.chainId === chainId);
  if (!network) return refuse("invalid_network", `Network ${String(requirements.network)} is not served by this facilitator.`, payer);
  if (modeOfNetwork(network) !== mode) return refuse("invalid_network", `Network ${network.shortName} is not available with ${mode} credentials.`, payer);
  const token = network.tokens.find((t) => same(t.address, requirements.asset));
  if (!token) return refuse("asset_not_offered", `Asset ${String(requirements.asset)} is not a token this service accepts on ${network.shortName}.`, payer);
  const wallet = wallets.get(network.id);
  if (!wallet) return refuse("no_merchant_wallet", `No settlement wallet is configured for ${network.shortName}.`, payer);
  const contract = network.settlementContract!;
  if (!same(requirements.payTo, contract)) return refuse("pay_to_not_settlement_contract", `payTo must be the settlement contract on ${network.shortName} (${contract}).`, payer);
  const amountText = payload.x402Version === 1 ? (requirements as unknown as { maxAmountRequired?: unknown }).maxAmountRequired : requirements.amount;
  if (typeof amountText !== "string" || !/^[1-9]\d{0,77}$/.test(amountText)) return refuse("invalid_amount", "The required amount must be a positive integer of the token's smallest units.", payer);
  if (payload.x402Version !== 1) {
    const accepted = payload.accepted;
    const matches =
      accepted !== null &&
      typeof accepted === "object" &&
      accepted.scheme === requirements.scheme &&
      accepted.network === requirements.network &&
      same(accepted.asset, requirements.asset) &&
      same(accepted.payTo, requirements.payTo) &&
      accepted.amount === requirements.amount;
    if (!matches) return refuse("accepted_requirements_mismatch", "The payload's accepted requirements are not the requirements being verified.", payer);
  }
  if (!authorization || !payer) return refuse("unsupported_payload", "Only EIP-3009 authorizations (transferWithAuthorization) are settled here.", payer);
  const nonce = authorization.nonce;
  if (typeof nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(nonce)) return refuse("invalid_payload", "The authorization's nonce must be 32 bytes of hex.", payer);
  if (!same(authorization.to, contract)) return refuse("pay_to_not_settlement_contract", "The authorization does not pay the settlement contract.", payer);
  if (authorization.value !== amountText) return refuse("invalid_amount", "The authorization's value is not the required amount.", payer);
  return { ok: true, offer: { network, token, payer, payTo: getAddress(contract), merchantWallet: getAddress(wallet), amount: BigInt(amountText), nonce: nonce.toLowerCase() } };
}
