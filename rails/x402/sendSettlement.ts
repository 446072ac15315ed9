import { BaseError, ContractFunctionRevertedError, encodeFunctionData, getAddress, type Hex, type LocalAccount } from "viem";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import type { Config, Network } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";
import { withChainLock } from "../chainLock.ts";
import { evmClient } from "../evm/client.ts";
import { operatorWallet } from "../evm/operator.ts";

type Authorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: Hex };

/** The contract refused the settlement (simulated): it cannot go through as it stands. */
export type SettlementRefused = { refused: string };

/**
 * Sends `settleAuthorization` to the settlement contract (`row.payTo`) with the operator's key
 * (the contract's settler): the payer's authorization is pulled into the contract, which pays
 * the payment's merchant wallet the amount less its fee and the fee recipient the fee, in that
 * one transaction. `received`: the authorization was already submitted to the token by someone
 * else and its money is in the contract (the caller saw it arrive), so it is passed on without
 * pulling. Estimated first (a simulation), with its fees, outside the chain's operator lock;
 * signed and sent under it. A revert in simulation is a refusal; anything else throws.
 */
export async function sendSettlement(
  ctx: { config: Config; databaseUrl: string },
  network: Network,
  row: X402SettlementRow,
  payment: Pick<PaymentRow, "merchantWallet" | "feeAmount" | "feeRecipient">,
  received: boolean,
): Promise<Hex | SettlementRefused> {
  const simulated = await simulateSettlement(ctx, network, row, payment, received);
  return "refused" in simulated ? simulated : sendSimulated(ctx, network, simulated);
}

/**
 * A settlement the contract accepts (its gas estimated: a revert there is the simulation's
 * refusal), with what it will pay for gas: everything but the nonce, which only the lock knows.
 */
export type SimulatedSettlement = { to: Hex; data: Hex; gas: bigint; fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | { gasPrice: bigint } };

/** The settlement contract's call estimated, and the chain's fees read (no lock): a revert is a refusal; anything else throws. */
export async function simulateSettlement(
  ctx: { config: Config },
  network: Network,
  row: X402SettlementRow,
  payment: Pick<PaymentRow, "merchantWallet" | "feeAmount" | "feeRecipient">,
  received: boolean,
): Promise<SimulatedSettlement | SettlementRefused> {
  const { authorization, signature } = (row.payload as { payload: { authorization: Authorization; signature: Hex } }).payload;
  const auth = {
    token: getAddress(row.asset),
    from: getAddress(authorization.from),
    value: BigInt(authorization.value),
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce,
  };
  const merchant = getAddress(payment.merchantWallet);
  const feeRecipient = getAddress(payment.feeRecipient ?? payment.merchantWallet);
  const wallet = operatorWallet(ctx.config, network);
  const client = evmClient(network, ctx.config.rpcTimeoutMs);
  const call = { address: getAddress(row.payTo), abi: paymentSettlementAbi, functionName: "settleAuthorization", args: [auth, signature, merchant, payment.feeAmount, feeRecipient, received] } as const;
  try {
    // As viem's own send fills them in (EIP-1559 where the chain has a base fee, else a gas price), before the lock instead of under it.
    const [gas, fees] = await Promise.all([
      client.estimateContractGas({ ...call, account: wallet.account! }),
      client.estimateFeesPerGas().catch(async () => ({ gasPrice: await client.getGasPrice() })),
    ]);
    return { to: call.address, data: encodeFunctionData(call), gas, fees };
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError) return { refused: reverted.data?.errorName ?? reverted.reason ?? "transaction_reverted" };
    throw error;
  }
}

/**
 * Signs and sends a simulated settlement under the chain's operator lock (nonces shared with
 * sweeps and refunds): under it only the nonce is read. Signed for the configured chain id, so
 * a node on another chain refuses it.
 */
export function sendSimulated(ctx: { config: Config; databaseUrl: string }, network: Network, simulated: SimulatedSettlement): Promise<Hex> {
  const wallet = operatorWallet(ctx.config, network);
  const account = wallet.account as LocalAccount;
  const client = evmClient(network, ctx.config.rpcTimeoutMs);
  return withChainLock(ctx.databaseUrl, network.chainId, async () => {
    const nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const common = { chainId: Number(network.chainId), to: simulated.to, data: simulated.data, gas: simulated.gas, nonce };
    const serializedTransaction = await account.signTransaction(
      "gasPrice" in simulated.fees ? { ...common, type: "legacy", gasPrice: simulated.fees.gasPrice } : { ...common, type: "eip1559", ...simulated.fees },
    );
    return wallet.sendRawTransaction({ serializedTransaction });
  });
}
