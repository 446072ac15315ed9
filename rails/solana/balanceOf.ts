import { PublicKey } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
import { tokenAccountBalance } from "./tokenAccountBalance.ts";
import { solanaConnection } from "./connection.ts";
import { watchOf } from "./watchedAccount.ts";

/**
 * What a deposit address's token account holds of the payment's mint, read from the chain
 * (0 when the account does not exist, e.g. closed by its sweep) from a node at the
 * payment's last credit at least (`tokenAccountBalance`).
 * A Solana Pay payment pays the merchant's own account: the service holds nothing for it.
 */
export async function balanceOf(network: Network, payment: PaymentRow, timeoutMs: number): Promise<bigint> {
  if (payment.kind !== "deposit" || !payment.receiveAddress) return 0n;
  const { credit } = watchOf(network, payment);
  const connection = solanaConnection(network, "confirmed", timeoutMs);
  return withTimeout(tokenAccountBalance(connection, new PublicKey(credit.account), payment.evidenceBlock), timeoutMs, `${network.shortName} token account`);
}
