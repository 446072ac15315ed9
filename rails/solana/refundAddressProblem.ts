import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { Network, Token } from "../../config/types.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
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
  return spendingProblem(network, address, timeoutMs, token, `${network.shortName} refund address`);
}

/**
 * Why `address` cannot be a merchant's settlement wallet on `network`, read from the chain;
 * null when it can. Sweeps of every token go to the associated token accounts *owned by*
 * the wallet (or, for one mint, to a token account of it given directly): a token account
 * given as the wallet takes its own mint's sweeps, but another mint's would go to an
 * account owned by that token account, which no key signs for. So no token account, mint,
 * program or empty off-curve address is taken; a wallet, or a program's vault, is.
 */
export async function settlementWalletProblem(network: Network, address: string, timeoutMs: number): Promise<string | null> {
  return spendingProblem(network, address, timeoutMs, null, `${network.shortName} settlement wallet`);
}

/** What the two checks share; `token`: the one mint whose token accounts are taken as they are. */
async function spendingProblem(network: Network, address: string, timeoutMs: number, token: Token | null, what: string): Promise<string | null> {
  const key = new PublicKey(address);
  const connection = solanaConnection(network, "confirmed", timeoutMs);
  const { value: account } = await withTimeout(connection.getParsedAccountInfo(key, "confirmed"), timeoutMs, what);
  if (account) {
    if (account.executable) return "it is a program";
    if (!account.owner.equals(TOKEN_PROGRAM_ID) && !account.owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
    const parsed = "parsed" in account.data ? (account.data.parsed as { type?: string; info?: { mint?: string } }) : null;
    if (parsed?.type === "mint") return "it is a token mint";
    if (token === null) return "it is a token account, not a wallet; give the wallet's own address (every token's sweeps go to the wallet's token accounts)";
    if (account.owner.equals(tokenProgramOf(token)) && parsed?.type === "account" && parsed.info?.mint === token.address) return null;
    return `it is a token account of another token than ${token.symbol}; give your wallet's address or its ${token.symbol} account`;
  }
  if (!PublicKey.isOnCurve(key.toBytes())) return "no key can sign for it and it holds nothing (a closed token account?); give your wallet's address";
  return null;
}
