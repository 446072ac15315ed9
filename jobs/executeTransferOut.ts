import pg from "pg";
import { erc20Abi, getAddress, keccak256, type Address, type Hex } from "viem";
import { evmClient } from "../chains/evmClient.ts";
import { operatorAccount, operatorWallet } from "../chains/operator.ts";
import { SWEEP_GAS, encodeDeployAndSweep } from "../chains/settlement/index.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { findPayment } from "../db/payments.ts";
import { confirmTransferOut, findTransferOut, updateTransferOut, type TransferOutRow } from "../db/transfersOut.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";


export class OperatorBalanceLowError extends ServiceUnavailableError {
  constructor(network: string, balance: bigint, needed: bigint) {
    super(`The operator's balance on ${network} (${balance} wei) is below the ${needed} wei a sweep needs; sweeps wait until it is funded.`);
  }
}

/**
 * One operator transaction at a time per chain, across every worker process: a
 * session advisory lock on its own connection (released if the process dies), so
 * nonces are never handed out twice and a row is never worked on concurrently.
 */
async function withChainLock<T>(databaseUrl: string, chainId: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(726100, hashtext($1))", [chainId]);
    return await work();
  } finally {
    await client.end().catch(() => {});
  }
}

export type TransferOutDeps = { config: Config; db: Db; logger: Logger; databaseUrl: string };

/**
 * Drives one sweep/refund row to a final state, exactly once on chain:
 * - `requested`: check gas and the deposit balance, sign with the next nonce, store the
 *   signed transaction and its hash (committed) — only then broadcast it;
 * - `broadcast`: look for the receipt; if the chain has never seen the transaction,
 *   re-send the very same signed bytes (same hash: it can be mined only once);
 * - a receipt closes the row as `confirmed` (or `failed` if it reverted).
 * Safe to call twice, concurrently, or after a crash at any point.
 */
export async function executeTransferOut(deps: TransferOutDeps, rowId: string): Promise<TransferOutRow> {
  const first = await findTransferOut(deps.db, rowId);
  if (!first) throw new Error(`no transfer ${rowId}`);
  return withChainLock(deps.databaseUrl, first.chainId, async () => {
    const row = (await findTransferOut(deps.db, rowId))!;
    if (row.status === "confirmed" || row.status === "failed") return row;
    const network = deps.config.networks.find((n) => n.chainId === row.chainId && n.type === "evm" && n.enabled);
    if (!network?.forwarderFactory) throw new ServiceUnavailableError(`chain ${row.chainId} is not available for sweeps`);
    const client = evmClient(network, 20_000);

    if (row.status === "requested") {
      const payment = (await findPayment(deps.db, row.paymentId))!;
      const account = operatorAccount(deps.config)!;
      const [gasPrice, operatorBalance, depositBalance] = await Promise.all([
        client.getGasPrice(),
        client.getBalance({ address: account.address }),
        client.readContract({ address: getAddress(payment.tokenAddress), abi: erc20Abi, functionName: "balanceOf", args: [payment.receiveAddress as Address] }),
      ]);
      const needed = SWEEP_GAS * gasPrice;
      if (operatorBalance < needed) throw new OperatorBalanceLowError(network.name, operatorBalance, needed);
      if (depositBalance < row.amount) {
        await updateTransferOut(deps.db, row.id, { status: "failed", error: `deposit address holds ${depositBalance}, less than ${row.amount}` });
        return (await findTransferOut(deps.db, row.id))!;
      }
      const wallet = operatorWallet(deps.config, network);
      const request = await wallet.prepareTransactionRequest({
        account,
        chain: wallet.chain,
        to: network.forwarderFactory as Address,
        data: encodeDeployAndSweep({
          paymentId: payment.id,
          merchantWallet: getAddress(payment.merchantWallet),
          token: getAddress(payment.tokenAddress),
          to: getAddress(row.toAddress),
          amount: row.amount,
        }),
        gas: SWEEP_GAS,
      });
      const raw = await wallet.signTransaction({ ...request, account, chain: wallet.chain } as Parameters<typeof wallet.signTransaction>[0]);
      const hash = keccak256(raw);
      // Recorded before broadcast: a crash from here on finds the hash and the bytes.
      await updateTransferOut(deps.db, row.id, { status: "broadcast", nonce: Number(request.nonce), rawTx: raw, txHash: hash });
      await client.sendRawTransaction({ serializedTransaction: raw }).catch((error: Error) => {
        deps.logger.warn({ err: error, transfer: row.id }, "broadcast failed; checking the chain");
      });
    }

    const current = (await findTransferOut(deps.db, row.id))!;
    const hash = current.txHash as Hex;
    let receipt = await client.getTransactionReceipt({ hash }).catch(() => null);
    if (!receipt) {
      const known = await client.getTransaction({ hash }).catch(() => null);
      if (!known) {
        const resent = await client.sendRawTransaction({ serializedTransaction: current.rawTx as Hex }).then(
          () => true,
          async (error: Error) => {
            // The nonce went to another transaction: this one can never be mined.
            const nonce = await client.getTransactionCount({ address: operatorAccount(deps.config)!.address, blockTag: "latest" });
            if (current.nonce !== null && nonce > current.nonce) return false;
            throw new ServiceUnavailableError(`re-broadcast failed: ${error.message.split("\n")[0]}`);
          },
        );
        if (!resent) {
          const again = await client.getTransactionReceipt({ hash }).catch(() => null);
          if (!again) {
            await updateTransferOut(deps.db, current.id, { status: "failed", error: "nonce used by another transaction; not mined" });
            return (await findTransferOut(deps.db, current.id))!;
          }
          receipt = again;
        }
      }
      receipt ??= await client.waitForTransactionReceipt({ hash, timeout: 120_000, pollingInterval: 250 });
    }
    if (receipt.status === "success") await confirmTransferOut(deps.db, current.id, receipt.blockNumber);
    else await updateTransferOut(deps.db, current.id, { status: "failed", blockNumber: receipt.blockNumber, error: "transaction reverted" });
    return (await findTransferOut(deps.db, current.id))!;
  });
}
