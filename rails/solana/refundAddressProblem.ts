import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { withTimeout } from "../withTimeout.ts";
import { solanaConnection } from "./connection.ts";
import { tokenOfMint, tokenProgramOf } from "./tokenAccounts.ts";

/**
 * Why a refund of `payment` sent to `address` would reach no one who can spend it; null when
 * it would. A refund pays a token account of the payment's mint directly and otherwise the
 * associated token account *owned by* the address, so an address that cannot own one usefully
 * loses the money for good: a token account of another mint (a customer's USDT account given
 * for a USDC payment), a mint, a program, or an address off the curve that holds nothing (a
 * closed token account: no key signs for it). Off-curve accounts that exist and belong to a
 * program other than a token program (a multisig vault) are taken: their program can sign.
 */
export async function refundAddressProblem(network: Network, payment: PaymentRow, address: string, timeoutMs: number): Promise<string | null> {
  const token = tokenOfMint(network, payment.tokenAddress);
  const key = new PublicKey(address);
  const connection = solanaConnection(network, "confirmed", timeoutMs);
  const { value: account } = await withTimeout(connection.getParsedAccountInfo(key, "confirmed"), timeoutMs, `${network.shortName} refund address`);
  if (account) {
    if (account.executable) return "it is a program";
    if (!account.owner.equals(TOKEN_PROGRAM_ID) && !account.owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
    const parsed = "parsed" in account.data ? (account.data.parsed as { type?: string; info?: { mint?: string } }) : null;
    if (account.owner.equals(tokenProgramOf(token)) && parsed?.type === "account" && parsed.info?.mint === token.address) return null;
    if (parsed?.type === "mint") return "it is a token mint";
    return `it is a token account of another token than ${token.symbol}; give your wallet's address or its ${token.symbol} account`;
  }
  if (!PublicKey.isOnCurve(key.toBytes())) return "no key can sign for it and it holds nothing (a closed token account?); give your wallet's address";
  return null;
}
