import { settledX402Of } from "../../db/x402Settlements.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { LoadedCredits, RailContext, SourcedCredit } from "../types.ts";

/**
 * The evidence of x402 payments: what each settlement transaction paid out (EVM: the
 * settlement contract's `AuthorizationSettled` log, from its receipt; Solana: the balance rise
 * of the merchant wallet's token account), read by the worker that submitted it.
 * Confirmations count from the chain's indexed head, as for every payment on it.
 */
export async function loadX402Credits(ctx: RailContext, payments: readonly PaymentRow[]): Promise<LoadedCredits> {
  const result: LoadedCredits = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  for (const s of await settledX402Of(ctx.db, payments.map((p) => p.id))) {
    if (s.txHash === null || s.blockNumber === null || s.logIndex === null || s.blockTimestamp === null) continue;
    result.get(s.paymentId)?.push({
      // What the wallet received (on Solana a Token-2022 fee may keep some of it); rows settled before it was recorded: the amount.
      amount: s.credited ?? s.amount,
      blockNumber: s.blockNumber,
      logIndex: s.logIndex,
      timestamp: s.blockTimestamp,
      txHash: s.txHash,
      source: "settlement",
      payer: s.payer,
    });
  }
  return result;
}
