import { timingSafeEqual } from "node:crypto";

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

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value);
/** A list field's objects: absent or null is none; anything else not an object is passed over. */
const objectsIn = (value: unknown): Fields[] => (Array.isArray(value) ? value.filter(isObject) : []);
/** Whether a list field is absent, null, or an array of objects (as documented). */
const isObjectList = (value: unknown) => value === undefined || value === null || (Array.isArray(value) && value.every(isObject));

/**
 * Whether a delivery has the documented shape of an enhanced webhook: an array of
 * transactions (objects) whose `tokenTransfers` and `accountData`, and each account's
 * `tokenBalanceChanges`, are arrays of objects. The receiver refuses anything else (400).
 */
export function isHeliusPayload(body: unknown): boolean {
  return (
    Array.isArray(body) &&
    body.every((t) => isObject(t) && isObjectList(t.tokenTransfers) && isObjectList(t.accountData) && objectsIn(t.accountData).every((d) => isObjectList(d.tokenBalanceChanges)))
  );
}

/**
 * Every address an enhanced webhook payload names (transfers' token accounts and
 * wallets, every account of `accountData` with its token balance changes, so a Solana
 * Pay reference is among them). The subscriber only uses them to know which watched
 * addresses to look at now: amounts are always read from the chain itself. A part not of
 * the documented shape names nothing (the payload is authenticated, not trusted).
 */
export function addressesInHeliusPayload(body: unknown): Set<string> {
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string" && value.length > 0) found.add(value);
  };
  for (const transaction of objectsIn(body)) {
    for (const transfer of objectsIn(transaction.tokenTransfers)) {
      add(transfer.toTokenAccount);
      add(transfer.toUserAccount);
      add(transfer.fromTokenAccount);
    }
    for (const data of objectsIn(transaction.accountData)) {
      add(data.account);
      for (const change of objectsIn(data.tokenBalanceChanges)) {
        add(change.tokenAccount);
        add(change.userAccount);
      }
    }
  }
  return found;
}
