import type { PublicClient, TransactionSerializable } from "viem";

/** Fees a transaction is signed with: EIP-1559 or legacy, as the one it replaces. */
export type Fees = { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { type: "legacy"; gasPrice: bigint };

/** Nodes accept a replacement only if its fees beat the replaced transaction's by 10%; 12.5% is used. */
const bumped = (fee: bigint | undefined) => (fee === undefined ? 0n : (fee * 9n) / 8n + 1n);

const maxOf = (...values: bigint[]) => values.reduce((a, b) => (b > a ? b : a));

/** The most the transaction may pay per gas: what its gas money must cover. */
export const feeCap = (fees: Fees) => (fees.type === "eip1559" ? fees.maxFeePerGas : fees.gasPrice);

/** Today's fees, in the type of `old`. */
export async function marketFees(client: PublicClient, old: TransactionSerializable): Promise<Fees> {
  if (old.type === "eip1559") {
    const { maxFeePerGas, maxPriorityFeePerGas } = await client.estimateFeesPerGas();
    return { type: "eip1559", maxFeePerGas, maxPriorityFeePerGas };
  }
  return { type: "legacy", gasPrice: await client.getGasPrice() };
}

/** Fees that replace `old` in a node's pool: today's, or 12.5% above `old`'s where those are higher. */
export function outbiddingFees(old: TransactionSerializable, market: Fees): Fees {
  if (market.type === "eip1559") {
    const maxPriorityFeePerGas = maxOf(market.maxPriorityFeePerGas, bumped(old.maxPriorityFeePerGas));
    return { type: "eip1559", maxPriorityFeePerGas, maxFeePerGas: maxOf(market.maxFeePerGas, bumped(old.maxFeePerGas), maxPriorityFeePerGas) };
  }
  return { type: "legacy", gasPrice: maxOf(market.gasPrice, bumped(old.gasPrice)) };
}
