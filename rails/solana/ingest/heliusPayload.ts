import { timingSafeEqual } from "node:crypto";
import type { EnhancedTransaction } from "helius-sdk/enhanced/types";

/**
 * Whether a delivery carries the `authHeader` the webhook was registered with (Helius
 * sends it back as `Authorization`), compared in constant time.
 */
export function heliusAuthorized(received: string | null, expected: string): boolean {
  if (received === null) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

type TokenBalanceChange = { userAccount?: string; tokenAccount?: string; mint?: string; rawTokenAmount?: { tokenAmount?: string; decimals?: number } };
type AccountData = { account?: string; nativeBalanceChange?: number; tokenBalanceChanges?: TokenBalanceChange[] };

/**
 * Every address an enhanced webhook payload names (transfers' token accounts and
 * wallets, every account of `accountData` with its token balance changes, so a Solana
 * Pay reference is among them). The subscriber only uses them to know which watched
 * addresses to look at now: amounts are always read from the chain itself.
 */
export function addressesInHeliusPayload(body: unknown): Set<string> {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string" && value.length > 0) found.add(value);
  };
  for (const transaction of Array.isArray(body) ? (body as Array<EnhancedTransaction & { accountData?: AccountData[] }>) : []) {
    if (!transaction || typeof transaction !== "object") continue;
    for (const t of transaction.tokenTransfers ?? []) {
      const transfer = t as unknown as Record<string, unknown>;
      add(transfer.toTokenAccount);
      add(transfer.toUserAccount);
      add(transfer.fromTokenAccount);
    }
    for (const data of (transaction.accountData ?? []) as AccountData[]) {
      add(data?.account);
      for (const change of data?.tokenBalanceChanges ?? []) {
        add(change.tokenAccount);
        add(change.userAccount);
      }
    }
  }
  return found;
}
