import { erc20Abi, isAddressEqual, parseAbiItem, parseEventLogs, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";

const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
const authorizationStateAbi = [parseAbiItem("function authorizationState(address authorizer, bytes32 nonce) view returns (bool)")];

/** How far back a used authorization's transaction is looked for (a settle is minutes old at most). */
const LOOKBACK_BLOCKS = 50_000n;

const lookback = (head: bigint) => (head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n);

/**
 * The transaction in which the settlement contract passed this authorization on (its
 * `AuthorizationSettled`), if it did: a run that crashed after broadcasting finds it here.
 */
export async function settledAuthorizationTx(client: PublicClient, row: X402SettlementRow): Promise<Hex | null> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const logs = await client.getContractEvents({
    address: row.payTo as Hex,
    abi: paymentSettlementAbi,
    eventName: "AuthorizationSettled",
    args: { token: row.asset as Hex, from: row.payer as Hex, nonce: row.nonce as Hex },
    fromBlock: lookback(head),
    toBlock: head,
  });
  return logs[0]?.transactionHash ?? null;
}

/**
 * The transaction that used this authorization at the token, if it was used: someone who
 * submitted it to the token directly (its money then sits in the settlement contract), or the
 * payer spending the nonce otherwise. Null while it is unused; "used" with no hash when the
 * chain says used but the log is older than the look-back.
 */
export async function usedAuthorizationTx(client: PublicClient, row: X402SettlementRow): Promise<Hex | "used" | null> {
  const token = row.asset as Hex;
  const used = await client.readContract({ address: token, abi: authorizationStateAbi, functionName: "authorizationState", args: [row.payer as Hex, row.nonce as Hex] });
  if (!used) return null;
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const logs = await client.getLogs({ address: token, event: authorizationUsed, args: { authorizer: row.payer as Hex, nonce: row.nonce as Hex }, fromBlock: lookback(head), toBlock: head });
  return logs[0]?.transactionHash ?? "used";
}

/** Whether the transaction moved the authorization's amount from the payer into the settlement contract (`payTo`). */
export async function movedIntoContract(client: PublicClient, row: X402SettlementRow, txHash: Hex): Promise<boolean> {
  const receipt = await client.getTransactionReceipt({ hash: txHash }).catch(() => null);
  if (receipt?.status !== "success") return false;
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).some(
    (log) => isAddressEqual(log.address, row.asset as Hex) && isAddressEqual(log.args.from, row.payer as Hex) && isAddressEqual(log.args.to, row.payTo as Hex) && log.args.value === row.amount,
  );
}

export type SettlementTransfer = { txHash: Hex; blockNumber: bigint; blockTimestamp: Date; logIndex: number; gasCost: bigint };

/**
 * The settlement transaction's `AuthorizationSettled` for this authorization and amount (the
 * contract paid merchant and fee recipient): the payment's evidence, with what its gas cost
 * the operator (wei), from its receipt (`known`: already fetched). `unmined`: no receipt yet;
 * `reverted`: mined without it (its gas spent all the same).
 */
export async function settlementTransfer(
  client: PublicClient,
  row: X402SettlementRow,
  txHash: Hex,
  known: TransactionReceipt | null = null,
): Promise<SettlementTransfer | "unmined" | { reverted: true; gasCost: bigint }> {
  const receipt = known ?? (await client.getTransactionReceipt({ hash: txHash }).catch(() => null));
  if (!receipt) return "unmined";
  const gasCost = receipt.gasUsed * receipt.effectiveGasPrice;
  const settled =
    receipt.status === "success"
      ? parseEventLogs({ abi: paymentSettlementAbi, eventName: "AuthorizationSettled", logs: receipt.logs }).find(
          (log) =>
            isAddressEqual(log.address, row.payTo as Hex) &&
            isAddressEqual(log.args.token, row.asset as Hex) &&
            isAddressEqual(log.args.from, row.payer as Hex) &&
            log.args.nonce.toLowerCase() === row.nonce &&
            log.args.amount === row.amount,
        )
      : undefined;
  if (!settled) return { reverted: true, gasCost };
  // Nodes that give a log its block's time (anvil, reth, recent geth) save reading the block.
  const seconds = (settled as { blockTimestamp?: bigint | null }).blockTimestamp ?? (await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp;
  return { txHash, blockNumber: receipt.blockNumber, blockTimestamp: new Date(Number(seconds) * 1000), logIndex: settled.logIndex, gasCost };
}
