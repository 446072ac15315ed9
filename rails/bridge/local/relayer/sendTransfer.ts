import { encodeFunctionData, erc20Abi, getAddress, keccak256, type Address, type Hex, type PublicClient } from "viem";
import type { Config, Network } from "../../../../config/index.ts";
import type { Logger } from "../../../../config/logger.ts";
import type { Db } from "../../../../db/client.ts";
import { evmClient } from "../../../evm/client.ts";
import { nullIfNotFound } from "../../../evm/nullIfNotFound.ts";
import { SWEEP_GAS, encodeDeployAndSweep } from "../../../evm/settlement/index.ts";
import { findFactory, findRequest, lastNonce, markSigned, updateTransfer, withdrawFill, type LocalBridgeTransferRow } from "../books.ts";
import { relayerAccount, relayerWallet } from "../relayerAccount.ts";

export type RelayerDeps = { config: Config; db: Db; logger: Logger };

/** The error of a transfer whose nonce another transaction took: nothing moved, so it is planned again. */
export const NONCE_TAKEN = "nonce used by another transaction; not mined";

/** Gas of a plain token transfer (a fill), with room to spare. */
const FILL_GAS = 100_000n;

const networkOf = (config: Config, chainId: string): Network => {
  const network = config.networks.find((n) => n.chainId === chainId && n.enabled && n.rpcUrl);
  if (!network) throw new Error(`the local relayer has no RPC for chain ${chainId}`);
  return network;
};

/**
 * Signs a planned transfer with the relayer's next nonce on its chain and records the
 * signed bytes and hash (committed) before broadcasting them: a crash from here on finds
 * them and sends the same transaction, never a second one; a transfer another relayer
 * signed meanwhile is left to it (`markSigned`). A fill the relayer cannot
 * cover is closed as failed instead (nothing is sent; its deposit is refunded).
 */
export async function signTransfer(deps: RelayerDeps, row: LocalBridgeTransferRow): Promise<void> {
  const network = networkOf(deps.config, row.chainId);
  const client = evmClient(network, 20_000);
  const account = relayerAccount(deps.config);
  let to: Address;
  let data: Hex;
  let gas: bigint;
  if (row.kind === "fill") {
    if ((await findRequest(deps.db, row.requestId))?.refundRequested) {
      await withdrawFill(deps.db, row);
      return;
    }
    const liquidity = await client.readContract({ address: getAddress(row.token), abi: erc20Abi, functionName: "balanceOf", args: [account.address] });
    if (liquidity < row.amount) {
      await updateTransfer(deps.db, row.id, { status: "failed", error: `insufficient liquidity: the relayer holds ${liquidity}, the fill needs ${row.amount}` });
      return;
    }
    to = getAddress(row.token);
    data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [getAddress(row.toAddress), row.amount] });
    gas = FILL_GAS;
  } else {
    const factory = await findFactory(deps.db, row.chainId);
    if (!factory) throw new Error(`no relayer factory on chain ${row.chainId}`);
    to = getAddress(factory.address);
    data = encodeDeployAndSweep({ paymentId: row.requestId, merchantWallet: account.address, token: getAddress(row.token), to: getAddress(row.toAddress), amount: row.amount });
    gas = SWEEP_GAS;
  }
  const [pending, recorded] = await Promise.all([
    client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    lastNonce(deps.db, row.chainId, account.address),
  ]);
  const nonce = Math.max(pending, recorded === null ? 0 : recorded + 1);
  const wallet = relayerWallet(deps.config, network);
  const request = await wallet.prepareTransactionRequest({ account, chain: wallet.chain, to, data, gas, nonce });
  const raw = await wallet.signTransaction({ ...request, account, chain: wallet.chain } as Parameters<typeof wallet.signTransaction>[0]);
  const txHash = keccak256(raw);
  if (!(await markSigned(deps.db, row.id, { fromAddress: account.address, nonce, rawTx: raw, txHash }))) {
    // A refund asked for meanwhile: the fill is withdrawn, never sent.
    if (row.kind === "fill" && (await findRequest(deps.db, row.requestId))?.refundRequested && (await withdrawFill(deps.db, row))) return;
    deps.logger.warn({ transfer: row.id }, "local relayer: the transfer was signed by another relayer; not sending this one");
    return;
  }
  await client.sendRawTransaction({ serializedTransaction: raw }).catch((error: Error) => {
    deps.logger.warn({ err: error, transfer: row.id }, "local relayer: broadcast failed; the next pass looks again");
  });
}

/**
 * Drives a signed transfer to its end: its receipt confirms it (or fails it, reverted); a
 * chain that never saw it gets the same bytes again; a nonce taken by another transaction
 * fails it (nothing moved; the relayer plans it again). Waits up to `waitMs` for a receipt.
 */
export async function followTransfer(deps: RelayerDeps, row: LocalBridgeTransferRow, waitMs = 0): Promise<void> {
  if (row.status !== "signed" || !row.txHash || !row.rawTx) return;
  const client = evmClient(networkOf(deps.config, row.chainId), 20_000);
  const hash = row.txHash as Hex;
  let receipt = await receiptOf(client, hash);
  if (!receipt && waitMs > 0) {
    receipt = await client.waitForTransactionReceipt({ hash, timeout: waitMs, pollingInterval: 100 }).catch(() => null);
  }
  if (receipt) {
    const ok = receipt.status === "success";
    await updateTransfer(deps.db, row.id, { status: ok ? "confirmed" : "failed", blockNumber: receipt.blockNumber, error: ok ? null : `transaction ${hash} reverted` });
    return;
  }
  const known = await client.getTransaction({ hash }).catch(nullIfNotFound);
  if (known) return;
  const refused = await client.sendRawTransaction({ serializedTransaction: row.rawTx as Hex }).then(
    () => null,
    (error: Error) => error,
  );
  if (!refused) return;
  const latest = await client.getTransactionCount({ address: relayerAccount(deps.config).address, blockTag: "latest" });
  if (row.nonce !== null && latest > row.nonce && !(await receiptOf(client, hash))) {
    await updateTransfer(deps.db, row.id, { status: "failed", error: NONCE_TAKEN });
  }
}

async function receiptOf(client: PublicClient, hash: Hex) {
  return client.getTransactionReceipt({ hash }).catch(nullIfNotFound);
}
