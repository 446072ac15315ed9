import { keccak256, parseTransaction, type Address, type Hex, type PublicClient } from "viem";
import { nullIfNotFound } from "../nullIfNotFound.ts";
import { evmClient } from "../client.ts";
import { operatorAccount, operatorWallet } from "../operator.ts";
import { feeCap, marketFees, outbiddingFees } from "./replacementFees.ts";
import { sweepGasLimit } from "./sweepGasLimit.ts";
import { transferCall } from "./transferCall.ts";

/** The transaction that used a merchant-signed refund's authorization, if one did by `atBlock` (x402's EVM package loads on use). */
const usedElsewhere = async (client: PublicClient, row: TransferOutRow, atBlock: bigint) =>
  (await import("../signedRefunds/eip3009.ts")).authorizationUsedBy(client, row, atBlock);
import type { Network } from "../../../config/types.ts";
import { findPayment } from "../../../db/payments.ts";
import { claimTransferOutBroadcast, findTransferOut, lastRecordedNonce, replaceTransferOutTx, updateTransferOut, type TransferOutRow } from "../../../db/transfersOut.ts";
import { OperatorBalanceLowError, ServiceUnavailableError } from "../../../domain/errors.ts";
import type { RailContext } from "../../types.ts";
import type { TransferContext } from "../../transferLedger.ts";
import { withChainLock } from "../../chainLock.ts";

/** A rail context that can take session locks (sweeps and refunds serialize signing per chain). */
export type TransferOutDeps = TransferContext & { databaseUrl: string };

/** Sweeps and refunds take a session lock on their own connection: they need the database URL. */
export function withDatabaseUrl(ctx: TransferContext): TransferOutDeps {
  if (!ctx.databaseUrl) throw new Error("sweeps and refunds need the database URL (session locks)");
  return { ...ctx, databaseUrl: ctx.databaseUrl };
}

const isFinal = (row: TransferOutRow) => row.status === "confirmed" || row.status === "failed";

/**
 * Drives one sweep/refund row to a final state, exactly once on chain:
 * - `requested` (under the chain's lock): check gas and what the source holds (the deposit
 *   address's token or native coin; the merchant's wallet for a merchant-signed refund,
 *   `transferCall.ts`), sign with the next nonce, store the signed transaction and its hash (committed) — only then
 *   broadcast it;
 * - `broadcast`: look for the receipt; if the chain has never seen the transaction,
 *   re-send the very same signed bytes (same hash: it can be mined only once); if it
 *   cannot be sent or waits unmined too long, replace it under the same nonce;
 * - a receipt of one of the row's transactions closes it as `confirmed` (or `failed` if
 *   it reverted); the nonce taken by any other transaction closes it as `failed`.
 * Safe to call twice, concurrently, or after a crash at any point.
 */
export async function executeTransferOut(ctx: TransferContext, rowId: string): Promise<TransferOutRow> {
  const deps = withDatabaseUrl(ctx);
  const first = await findTransferOut(deps.db, rowId);
  if (!first) throw new Error(`no transfer ${rowId}`);
  if (isFinal(first)) return first;
  const network = deps.config.networks.find((n) => n.chainId === first.chainId && n.type === "evm" && n.enabled);
  // A relayed merchant-signed refund calls the token itself: it needs no forwarder factory.
  if (!network || (!network.forwarderFactory && !first.merchantSigned)) throw new ServiceUnavailableError(`chain ${first.chainId} is not available for sweeps`);
  const client = evmClient(network, 20_000);

  if (first.status === "requested") {
    const ended = await withChainLock(deps.databaseUrl, first.chainId, () => signAndBroadcast(deps, network, client, rowId));
    if (ended) return ended;
  }
  return followBroadcast(deps, network, client, rowId);
}

/** The `requested` step; returns the row if it ended here (nothing to send), else null. */
async function signAndBroadcast(deps: TransferOutDeps, network: Network, client: PublicClient, rowId: string): Promise<TransferOutRow | null> {
  const row = (await findTransferOut(deps.db, rowId))!;
  if (row.status !== "requested") return isFinal(row) ? row : null;
  const payment = (await findPayment(deps.db, row.paymentId))!;
  const account = operatorAccount(deps.config)!;
  const [operatorBalance, pendingNonce, lastNonce, what] = await Promise.all([
    client.getBalance({ address: account.address }),
    client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    lastRecordedNonce(deps.db, row.chainId, account.address),
    transferCall(network, client, account.address, payment, row),
  ]);
  if ("misconfigured" in what) {
    await updateTransferOut(deps.db, row.id, { error: what.misconfigured });
    deps.logger.error({ transfer: row.id, payment: payment.id }, what.misconfigured);
    throw new ServiceUnavailableError(what.misconfigured);
  }
  if ("expired" in what || what.held < row.amount) {
    await deps.ledger.fail(deps.db, row.id, "requested", { error: "expired" in what ? what.expired : `${what.source} holds ${what.held}, less than ${row.amount}` });
    return (await findTransferOut(deps.db, row.id))!;
  }
  // Our own recorded transactions count even where this node has not seen them (one it
  // dropped, or another node behind the same RPC URL): a nonce is never handed out twice.
  const nonce = Math.max(pendingNonce, lastNonce === null ? 0 : lastNonce + 1);
  const wallet = operatorWallet(deps.config, network);
  const call = what.call;
  const gas = await sweepGasLimit(client, call);
  const request = await wallet.prepareTransactionRequest({ ...call, account, chain: wallet.chain, gas, nonce });
  // A node takes a transaction only if the sender holds its gas at the fee cap it is signed
  // with (maxFeePerGas, above today's price): judged by the price alone, one the node then
  // refused was recorded, its nonce holding back every later sweep on the chain.
  const needed = gas * ((request.maxFeePerGas ?? request.gasPrice) as bigint);
  if (operatorBalance < needed) throw new OperatorBalanceLowError(network.name, operatorBalance, needed);
  const raw = await wallet.signTransaction({ ...request, account, chain: wallet.chain } as Parameters<typeof wallet.signTransaction>[0]);
  const hash = keccak256(raw);
  // Recorded before broadcast: a crash from here on finds the hash and the bytes. Only if
  // the row is still `requested`: a refund closed meanwhile (no longer owed) stays closed.
  const claimed = await claimTransferOutBroadcast(deps.db, row.id, { nonce, fromAddress: account.address, rawTx: raw, txHash: hash });
  if (!claimed) {
    const now = (await findTransferOut(deps.db, row.id))!;
    return isFinal(now) ? now : null;
  }
  await client.sendRawTransaction({ serializedTransaction: raw }).catch((error: Error) => {
    deps.logger.warn({ err: error, transfer: row.id }, "broadcast failed; checking the chain");
  });
  return null;
}

/**
 * The `broadcast` step: find the receipt of the row's transaction, or of one it replaced.
 * If the chain lost the transaction, re-send the very same bytes; if the node refuses
 * them, or they wait unmined past `transfers.replaceAfterMs`, replace them with the same
 * nonce at higher fees (only one transaction of a nonce can ever be mined).
 */
async function followBroadcast(deps: TransferOutDeps, network: Network, client: PublicClient, rowId: string): Promise<TransferOutRow> {
  let current = (await findTransferOut(deps.db, rowId))!;
  if (current.status !== "broadcast") return current;
  const mined = await minedReceipt(client, current);
  if (mined) return close(deps, client, current, mined);

  const hash = current.txHash as Hex;
  const known = await client.getTransaction({ hash }).catch(nullIfNotFound);
  const stale = Date.now() - current.updatedAt.getTime() >= deps.config.transfers.replaceAfterMs;
  if (!known) {
    const refused = await client.sendRawTransaction({ serializedTransaction: current.rawTx as Hex }).then(
      () => null,
      (error: Error) => error,
    );
    if (refused) {
      const latest = await client.getTransactionCount({ address: (current.fromAddress ?? operatorAccount(deps.config)!.address) as Address, blockTag: "latest" });
      if (current.nonce !== null && latest > current.nonce) {
        // The nonce was used: by one of this row's transactions (mined since, perhaps one
        // another run put on the row after it was read here), or by another one.
        const fresh = (await findTransferOut(deps.db, current.id))!;
        if (fresh.status !== "broadcast") return fresh;
        const again = await minedReceipt(client, fresh);
        if (again) return close(deps, client, fresh, again);
        // Behind one RPC URL, the node that counted the nonce used may be ahead of the one
        // asked for the receipts: "not ours" is believed only once the row has waited long
        // enough for every node to have the block (failed, a refund would be offered again).
        if (Date.now() - fresh.updatedAt.getTime() < deps.config.transfers.replaceAfterMs) {
          throw new ServiceUnavailableError(`the nonce of transaction ${hash} is used, but no receipt of it was found yet (a node behind?)`);
        }
        await deps.ledger.fail(deps.db, fresh.id, "broadcast", { error: "nonce used by another transaction; not mined" }, { txHash: fresh.txHash! });
        return (await findTransferOut(deps.db, fresh.id))!;
      }
      // Nothing of it is in the pool to outbid. Once it has been out long enough, it is signed
      // again at today's fees (a fee the base fee has passed is the refusal that cures).
      if (!stale) throw new ServiceUnavailableError(`the node refused transaction ${hash}: ${refused.message.split("\n")[0]}`);
      deps.logger.warn({ err: refused, transfer: current.id }, "the node refused the recorded transaction; signing it again at today's fees");
      current = await replaceTransaction(deps, network, client, current, "market");
    }
  } else if (known.blockNumber === null && stale) {
    deps.logger.warn({ transfer: current.id, hash }, "transaction unmined too long; replacing it with higher fees");
    current = await replaceTransaction(deps, network, client, current, "outbid");
  }
  if (current.status !== "broadcast") return current;

  const waitMs = Math.min(deps.config.transfers.replaceAfterMs, 120_000);
  // viem resolves with whatever transaction took the nonce, so the receipt is checked against the row's own.
  const receipt = await client.waitForTransactionReceipt({ hash: current.txHash as Hex, timeout: waitMs, pollingInterval: 250 }).catch(() => null);
  const latest = (await findTransferOut(deps.db, rowId))!; // another run may have replaced it meanwhile
  if (latest.status !== "broadcast") return latest;
  const ours = receipt && hashesOf(latest).includes(receipt.transactionHash.toLowerCase()) ? receipt : await minedReceipt(client, latest);
  if (ours) return close(deps, client, latest, ours);
  if (receipt) {
    await deps.ledger.fail(deps.db, latest.id, "broadcast", { error: "nonce used by another transaction; not mined" }, { txHash: latest.txHash! });
    return (await findTransferOut(deps.db, latest.id))!;
  }
  // Not mined yet: the job's retry looks again, and replaces it if it has waited too long.
  throw new ServiceUnavailableError(`transaction ${latest.txHash} not mined yet`);
}

type MinedReceipt = { status: "success" | "reverted"; blockNumber: bigint; transactionHash: Hex };

export const hashesOf = (row: TransferOutRow) => [row.txHash, ...row.replacedTxHashes].filter((h): h is string => Boolean(h)).map((h) => h.toLowerCase());

/**
 * The receipt of whichever of the row's transactions (current or replaced) was mined, if any.
 * A lookup that fails throws (the job retries): only the chain's "not found" counts as unmined.
 */
export async function minedReceipt(client: PublicClient, row: TransferOutRow): Promise<MinedReceipt | null> {
  const receipts = await Promise.all(hashesOf(row).map((hash) => client.getTransactionReceipt({ hash: hash as Hex }).catch(nullIfNotFound)));
  return receipts.find((r) => r !== null) ?? null;
}

async function close(deps: TransferOutDeps, client: PublicClient, row: TransferOutRow, receipt: MinedReceipt): Promise<TransferOutRow> {
  // A merchant-signed refund's authorization can be submitted by anyone who saw it in the pool:
  // if another transaction used it first, the money went where it says, and that is the refund.
  const mined = receipt.status === "reverted" && row.merchantSigned ? await usedElsewhere(client, row, receipt.blockNumber) : null;
  if (receipt.status === "success" || mined) await deps.ledger.confirm(deps.db, row.id, mined ?? { blockNumber: receipt.blockNumber, txHash: receipt.transactionHash });
  else await deps.ledger.fail(deps.db, row.id, "broadcast", { blockNumber: receipt.blockNumber, error: `transaction ${receipt.transactionHash} reverted` });
  return (await findTransferOut(deps.db, row.id))!;
}

/** An unmined transaction already offering this many times today's fee is not outbid: fees are not what holds it. */
const MAX_FEE_OVER_MARKET = 3n;

/**
 * Signs the row's transaction again with its nonce, calldata and gas: at today's fees
 * (`market`: nothing of it waits in the pool), or `outbid`ding the one in the pool by
 * 12.5% if today's fees are not higher still. Records it (the old hash kept) and only
 * then sends it. Returns the row as it now stands.
 */
export async function replaceTransaction(
  deps: RailContext,
  network: Network,
  client: PublicClient,
  row: TransferOutRow,
  how: "market" | "outbid",
): Promise<TransferOutRow> {
  const account = operatorAccount(deps.config)!;
  assertSameSigner(row, account.address);
  const old = parseTransaction(row.rawTx as Hex);
  const market = await marketFees(client, old);
  const oldCap = (old.type === "eip1559" ? old.maxFeePerGas : old.gasPrice) ?? 0n;
  if (how === "outbid" && oldCap >= MAX_FEE_OVER_MARKET * feeCap(market)) return row;
  const fees = how === "outbid" ? outbiddingFees(old, market) : market;
  await ensureGasMoney(client, network, account.address, old.gas! * feeCap(fees));
  const raw = await account.signTransaction({ chainId: Number(network.chainId), nonce: old.nonce!, to: old.to!, data: old.data!, gas: old.gas!, value: old.value ?? 0n, ...fees });
  const txHash = keccak256(raw);
  if (txHash === row.txHash) return row; // the same bytes: nothing to replace
  const replaced = await replaceTransferOutTx(deps.db, row.id, row.txHash!, { rawTx: raw, txHash }, row.status === "confirmed" ? "confirmed" : "broadcast");
  if (!replaced) return (await findTransferOut(deps.db, row.id))!; // another run replaced or closed it first
  await client.sendRawTransaction({ serializedTransaction: raw }).catch((error: Error) => {
    deps.logger.warn({ err: error, transfer: row.id }, "broadcast of the replacement failed; the next run looks again");
  });
  return replaced;
}

/**
 * A replacement is a transaction of the same sender and nonce. After OPERATOR_PRIVATE_KEY
 * changed, the new key "replacing" a row the old one signed would send a second, separate
 * transaction (both could be mined: the money moved twice): the old key's rows are left
 * to be mined, or cancelled with that key.
 */
export function assertSameSigner(row: TransferOutRow, operator: Address): void {
  if (row.fromAddress && row.fromAddress.toLowerCase() !== operator.toLowerCase()) {
    throw new ServiceUnavailableError(
      `transfer ${row.id} was signed by ${row.fromAddress}, not by the operator key now configured (${operator}): only that key can replace or cancel it; it stays as sent`,
    );
  }
}

/** A replacement the operator cannot pay for is not signed: the job waits, as a first sweep does. */
export async function ensureGasMoney(client: PublicClient, network: Network, operator: Address, needed: bigint) {
  const balance = await client.getBalance({ address: operator });
  if (balance < needed) throw new OperatorBalanceLowError(network.name, balance, needed);
}

