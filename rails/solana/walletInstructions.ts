import type { Network } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { solanaPayTransferUri } from "../../domain/paymentUri.ts";
import { solanaPayReference } from "./solanaPayReference.ts";
import { associatedTokenAccount, tokenProgramOf } from "./tokenAccounts.ts";

/**
 * The Solana Pay transfer request a wallet opens from the QR code: to the merchant's
 * wallet with the payment's reference (direct payments), or to the deposit key
 * (deposit payments, found by their token account). Amount in whole tokens.
 */
export function paymentUri(p: PaymentRow): string | null {
  if (!p.receiveAddress) return null;
  return solanaPayTransferUri({
    recipient: p.receiveAddress,
    amount: formatAmount(p.amount, p.tokenDecimals),
    splToken: p.tokenAddress,
    reference: p.kind === "deposit" ? undefined : solanaPayReference(p.id).toBase58(),
    label: p.tokenSymbol,
    // Never the merchant's order id: the URI is in the QR code and the public checkout view.
    message: `Payment ${p.id}`,
  });
}

/** A deposit's key and its token accounts of the payment's mint (money arrives in the one of the mint's program; both are the key's). */
export function depositAccounts(p: PaymentRow): string[] {
  if (!p.receiveAddress) return [];
  const programs = [tokenProgramOf({ tokenProgram: "spl-token" }), tokenProgramOf({ tokenProgram: "token-2022" })];
  return [p.receiveAddress, ...programs.map((program) => associatedTokenAccount(p.receiveAddress!, p.tokenAddress, program).toBase58())];
}

/**
 * What a wallet needs to build the transfer by hand: recipient, its token account, mint,
 * program, reference. For the client SDK, the split it reads: no service fee is collected
 * on Solana, so the merchant's share is all of it and the SDK sends one plain transfer.
 */
export function walletInstructions(p: PaymentRow, network: Network) {
  if (!p.receiveAddress) return null;
  const token = network.tokens.find((t) => t.address === p.tokenAddress);
  const program = tokenProgramOf(token ?? {});
  return {
    solanaPay: {
      recipient: p.receiveAddress,
      recipientTokenAccount: associatedTokenAccount(p.receiveAddress, p.tokenAddress, program).toBase58(),
      splToken: p.tokenAddress,
      tokenProgram: program.toBase58(),
      amount: formatAmount(p.amount, p.tokenDecimals),
      amountRaw: p.amount.toString(),
      decimals: p.tokenDecimals,
      reference: p.kind === "deposit" ? null : solanaPayReference(p.id).toBase58(),
    },
    ...(p.kind !== "deposit" && { merchantPercentage: 10_000, coinleyWallet: null, coinleyPercentage: 0 }),
  };
}
