import { keccak256, parseTransaction, type Hex } from "viem";
import { evmClient } from "../client.ts";
import { operatorAccount } from "../operator.ts";
import { feeCap, marketFees, outbiddingFees } from "./replacementFees.ts";
import { findTransferOut, type TransferOutRow } from "../../../db/transfersOut.ts";
import { ConflictError, NotFoundError, ServiceUnavailableError } from "../../../domain/errors.ts";
import type { TransferContext } from "../../transferLedger.ts";
import { assertSameSigner, ensureGasMoney, executeTransferOut } from "./executeTransferOut.ts";

/** Gas of a plain transfer of nothing to oneself: all a cancellation needs. */
const CANCEL_GAS = 21_000n;

export type CancelTransferOutResult = {
  /** The row as it stands afterwards: `failed` (cancelled), `confirmed` (the original was mined first), or still `broadcast` if nothing was mined in time. */
  row: TransferOutRow;
  /** The cancelling transaction, if one was sent. */
  cancelTxHash: Hex | null;
};

/**
 * The operator's way out for a sweep or refund whose transaction cannot be mined: every
 * later operator transaction on that chain queues behind its nonce. Takes the nonce with
 * a transfer of nothing to the operator itself, at fees above the stuck transaction's,
 * waits up to `waitMs` for the block, then closes the row through the usual path:
 * `failed` with nothing moved (the payment's next sweep or refund run sends it again
 * under a new nonce), or `confirmed` if the original was mined first. Either way the
 * nonce is spent once, so nothing can move twice.
 */
export async function cancelTransferOut(deps: TransferContext, rowId: string, { waitMs = 120_000 } = {}): Promise<CancelTransferOutResult> {
  const row = await findTransferOut(deps.db, rowId);
  if (!row) throw new NotFoundError(`no sweep or refund with id ${rowId}`);
  if (row.status !== "broadcast" || row.nonce === null || !row.rawTx) {
    throw new ConflictError(
      row.status === "requested"
        ? `transfer ${row.id} is not signed yet: it holds no nonce, so nothing waits behind it (it is waiting for ${row.error ?? "its next run"})`
        : `transfer ${row.id} is already ${row.status}`,
    );
  }
  const network = deps.config.networks.find((n) => n.chainId === row.chainId && n.type === "evm" && n.enabled);
  if (!network) throw new ServiceUnavailableError(`chain ${row.chainId} is not available`);
  const client = evmClient(network, 20_000);
  const account = operatorAccount(deps.config);
  if (!account) throw new ServiceUnavailableError("OPERATOR_PRIVATE_KEY is not set");

  assertSameSigner(row, account.address);
  // The nonce already spent (by this row's transaction or another): nothing is left to cancel.
  const mined = await client.getTransactionCount({ address: account.address, blockTag: "latest" });
  if (mined > row.nonce) return { row: await executeTransferOut(deps, row.id), cancelTxHash: null };

  const old = parseTransaction(row.rawTx as Hex);
  const fees = outbiddingFees(old, await marketFees(client, old));
  await ensureGasMoney(client, network, account.address, CANCEL_GAS * feeCap(fees));
  const raw = await account.signTransaction({ chainId: Number(network.chainId), nonce: row.nonce, to: account.address, value: 0n, gas: CANCEL_GAS, ...fees });
  const cancelTxHash = keccak256(raw);
  deps.logger.warn({ transfer: row.id, nonce: row.nonce, cancelTxHash }, "cancelling a sweep/refund transaction at the operator's request");
  await client.sendRawTransaction({ serializedTransaction: raw }).catch((error: Error) => {
    throw new ServiceUnavailableError(`the node refused the cancelling transaction: ${error.message.split("\n")[0]}`);
  });
  // Whichever transaction takes the nonce, this resolves once it is mined.
  const receipt = await client.waitForTransactionReceipt({ hash: cancelTxHash, timeout: waitMs, pollingInterval: 500 }).catch(() => null);
  if (!receipt) return { row: (await findTransferOut(deps.db, row.id))!, cancelTxHash };
  if (receipt.transactionHash.toLowerCase() === cancelTxHash.toLowerCase()) {
    // The cancel itself took the nonce (its receipt, from the node that has the block): none of the row's can be mined.
    const now = (await findTransferOut(deps.db, row.id))!;
    if (now.status === "broadcast") await deps.ledger.fail(deps.db, now.id, "broadcast", { error: "nonce used by another transaction; not mined" }, { txHash: now.txHash! });
    return { row: (await findTransferOut(deps.db, row.id))!, cancelTxHash };
  }
  return { row: await executeTransferOut(deps, row.id), cancelTxHash };
}
