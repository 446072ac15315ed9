import { getAddress, type Hex, type PublicClient } from "viem";

/** The sender of transaction `hash` (checksummed), or null when it is not a transaction hash or the node does not know it. */
export async function transactionSender(client: PublicClient, hash: string): Promise<string | null> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) return null;
  const transaction = await client.getTransaction({ hash: hash as Hex }).catch((error: Error) => {
    if (error.name === "TransactionNotFoundError") return null;
    throw error;
  });
  return transaction ? getAddress(transaction.from) : null;
}
