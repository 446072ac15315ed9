import { erc20Abi, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { forwarderFactoryAbi } from "../../../contracts/artifacts/index.ts";
import type { Network } from "../../../config/types.ts";
import type { PaymentRow, TransferOutRow } from "../../../db/schema/index.ts";
import { depositBalance } from "../depositBalance.ts";
import { encodeDeployAndSweep, encodeDeployAndSweepNative, paymentIdToBytes32 } from "../settlement/index.ts";

/**
 * The operator's transaction for a transfer-out row and what its source holds now:
 * - out of a deposit address: the forwarder factory deploys the payment's forwarder and
 *   sweeps it (`misconfigured` when the configured factory would deploy it elsewhere);
 * - a merchant-signed refund: the token's `transferWithAuthorization` from the merchant's
 *   wallet (`expired` once its window has closed: it can never be mined).
 */
export type TransferCall =
  | { call: { account: Address; to: Address; data: Hex }; held: bigint; source: string }
  | { misconfigured: string }
  | { expired: string };

export async function transferCall(network: Network, client: PublicClient, operator: Address, payment: PaymentRow, row: TransferOutRow): Promise<TransferCall> {
  if (row.merchantSigned) {
    // Loaded on use: x402's EVM package declares EIP-3009's ABI.
    const { relayCalldata, storedAuthorization } = await import("../signedRefunds/eip3009.ts");
    const { authorization, signature } = storedAuthorization(row.merchantSigned, row.toAddress, row.amount);
    const block = await client.getBlock({ blockTag: "latest" });
    // Mined at the earliest in the next block: one that is not valid then never will be.
    if (authorization.validBefore <= block.timestamp + 1n) return { expired: `the merchant's authorization expired at ${new Date(Number(authorization.validBefore) * 1000).toISOString()}; nothing moved` };
    const held = await client.readContract({ address: getAddress(payment.tokenAddress), abi: erc20Abi, functionName: "balanceOf", args: [authorization.from] });
    return { call: { account: operator, to: getAddress(payment.tokenAddress), data: relayCalldata(authorization, signature) }, held, source: `the merchant's wallet ${authorization.from}` };
  }
  const [held, forwarder] = await Promise.all([
    // Native coin (a `native_sweep`) or the payment's token: what the row moves.
    row.kind === "native_sweep" ? client.getBalance({ address: payment.receiveAddress as Address }) : depositBalance(client, payment),
    client.readContract({ address: network.forwarderFactory as Address, abi: forwarderFactoryAbi, functionName: "computeAddress", args: [paymentIdToBytes32(payment.id), getAddress(payment.merchantWallet)] }),
  ]);
  // The configured factory deploys this payment's forwarder somewhere else (it was changed, or
  // compiled from another forwarder source): its sweep would deploy an empty forwarder and
  // revert, again and again. Nothing is signed; the operator points FORWARDER_FACTORY back.
  if (forwarder.toLowerCase() !== payment.receiveAddress?.toLowerCase()) {
    return {
      misconfigured: `the configured forwarder factory ${network.forwarderFactory} deploys this payment's forwarder at ${forwarder}, not at its deposit address ${payment.receiveAddress}: set FORWARDER_FACTORY to the factory the address was derived from`,
    };
  }
  const merchantWallet = getAddress(payment.merchantWallet);
  const to = getAddress(row.toAddress);
  const data =
    row.kind === "native_sweep"
      ? encodeDeployAndSweepNative({ paymentId: payment.id, merchantWallet, to, amount: row.amount })
      : encodeDeployAndSweep({ paymentId: payment.id, merchantWallet, token: getAddress(payment.tokenAddress), to, amount: row.amount });
  return { call: { account: operator, to: network.forwarderFactory as Address, data }, held, source: "deposit address" };
}
