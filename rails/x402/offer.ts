import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { modeOfNetwork, type Config, type Mode } from "../../config/index.ts";
import type { OfferCheck } from "../ports/agentPayments.ts";
import { payerOfAny, x402ChainOf } from "./chains.ts";
import { networkNamed } from "./networkNames.ts";

const refuse = (reason: string, message: string, payer?: string): OfferCheck => ({ ok: false, reason, message, payer });

/**
 * Whether the requirements are ones this merchant offers: the payer controls what reaches
 * the facilitator (the requirements the resource server matched, the `accepted` it signed
 * under), so nothing is taken on trust. The network must be one the facilitator serves in the
 * credential's mode, the asset a token of it, `payTo` where the chain's `exact` payments go
 * for this merchant (EVM: the settlement contract, which pays the merchant's settlement wallet
 * there less the service fee; Solana: that wallet itself); the payload's `accepted` (v2) must
 * be these requirements; the payload one of the chain's `exact` payments paying exactly that
 * (on Solana x402's verify checks the transfer).
 */
export function checkOffer(config: Config, mode: Mode, wallets: ReadonlyMap<string, string>, payload: PaymentPayload, requirements: PaymentRequirements): OfferCheck {
  const named = networkNamed(config, requirements.network);
  const chain = named ? x402ChainOf(named) : undefined;
  const payer = chain ? chain.payerOf(payload.payload) : payerOfAny(payload.payload);
  if (requirements.scheme !== "exact") return refuse("unsupported_scheme", `Scheme ${String(requirements.scheme)} is not supported (exact only).`, payer);
  if (!named || !chain) return refuse("invalid_network", `Network ${String(requirements.network)} is not served by this facilitator.`, payer);
  const network = named;
  if (modeOfNetwork(network) !== mode) return refuse("invalid_network", `Network ${network.shortName} is not available with ${mode} credentials.`, payer);
  const same = chain.sameAddress;
  const token = network.tokens.find((t) => same(t.address, requirements.asset));
  if (!token) return refuse("asset_not_offered", `Asset ${String(requirements.asset)} is not a token this service accepts on ${network.shortName}.`, payer);
  const wallet = wallets.get(network.id);
  if (!wallet) return refuse("no_merchant_wallet", `No settlement wallet is configured for ${network.shortName}.`, payer);
  const destination = chain.destination(network, wallet);
  if (destination.payTo === null) return refuse("invalid_network", `Network ${network.shortName} cannot settle x402 payments here.`, payer);
  if (!same(requirements.payTo, destination.payTo)) return refuse(destination.reason, destination.message, payer);
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
  const authorization = chain.authorization(payload.payload, destination.payTo, amountText);
  if (!authorization.ok) return refuse(authorization.reason, authorization.message, payer);
  const { payer: from, nonce, validBefore } = authorization;
  const offer = { network, token, payer: from, payTo: destination.payTo, merchantWallet: destination.merchantWallet, collectsFee: destination.collectsFee, amount: BigInt(amountText), nonce, validBefore };
  return { ok: true, offer };
}
