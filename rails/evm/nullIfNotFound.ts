/** viem's errors for a transaction or receipt the node does not hold: the only failures that mean "absent". */
const NOT_FOUND = new Set(["TransactionNotFoundError", "TransactionReceiptNotFoundError"]);

/**
 * A `.catch` for transaction and receipt lookups: "not found" becomes null, anything else
 * (a timeout, a 429, a node down) is thrown on. Reading a failed lookup as "absent" would let
 * a hiccup close a mined transfer as never sent, and send it again.
 */
export function nullIfNotFound(error: Error): null {
  if (NOT_FOUND.has(error.name)) return null;
  throw error;
}
