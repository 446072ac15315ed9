import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { solanaPayReference } from "./solanaPayReference.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "./tokenAccounts.ts";
import type { WatchedTokenAccount } from "./tokenBalanceDelta.ts";

/**
 * What the subscriber watches for a payment: the address whose signatures it lists
 * (`scan`), and the token account whose balance rise is the credit (`credit`).
 * - deposit: the deposit key's associated token account for the mint, both;
 * - Solana Pay: the payment's reference key is listed, and the merchant's associated
 *   token account is credited (the funds go to the merchant directly: `settlement`).
 */
export type PaymentWatch = {
  paymentId: string;
  scan: string;
  credit: WatchedTokenAccount;
  owner: string;
  source: "transfer" | "settlement";
};

export function watchOf(network: Network, payment: Pick<PaymentRow, "id" | "kind" | "receiveAddress" | "merchantWallet" | "tokenAddress">): PaymentWatch {
  const token = tokenOfMint(network, payment.tokenAddress);
  const program = tokenProgramOf(token);
  const deposit = payment.kind === "deposit";
  const owner = deposit ? payment.receiveAddress! : payment.merchantWallet;
  const account = associatedTokenAccount(owner, payment.tokenAddress, program).toBase58();
  return {
    paymentId: payment.id,
    scan: deposit ? account : solanaPayReference(payment.id).toBase58(),
    credit: { account, mint: payment.tokenAddress, tokenProgram: program.toBase58() },
    owner,
    source: deposit ? "transfer" : "settlement",
  };
}
