import { evmClient } from "../../../evm/client.ts";
import {
  decideDeposit,
  depositsOf,
  planTransfer,
  transfersOf,
  unfinishedTransfers,
  updateRequest,
  watchedRequests,
  type LocalBridgeDepositRow,
  type LocalBridgeRequestRow,
  type LocalBridgeTransferRow,
  type LocalRequestState,
  type LocalTransferKind,
} from "../books.ts";
import { relayerAccount } from "../relayerAccount.ts";
import { judgeDeposit } from "./judgeDeposit.ts";
import { scanDeposits } from "./scanDeposits.ts";
import { NONCE_TAKEN, followTransfer, signTransfer, type RelayerDeps } from "./sendTransfer.ts";

/** How long one pass waits for the receipts of what it sent. */
const RECEIPT_WAIT_MS = 10_000;

/**
 * One pass of the local relayer. Each step reads the books and acts on what they say, so a
 * pass cut short anywhere (a crash) is finished by the next one:
 * 1. drive transfers already signed to their receipts, and move requests on from them;
 * 2. record new deposits at the watched deposit addresses;
 * 3. judge each new deposit once it has its confirmations (fill or refund) and plan the
 *    transfers that follow: the fill
 *    on the destination chain; once it is confirmed, the collection of the deposit and the
 *    refund of any excess on the origin chain; or the refund of the whole deposit;
 * 4. sign and send what is planned (the signed bytes are recorded first), await receipts.
 */
export async function relayerTick(deps: RelayerDeps): Promise<void> {
  const confirmations = deps.config.bridge.local?.confirmations ?? 1;
  for (const t of await unfinishedTransfers(deps.db)) if (t.status === "signed") await eachAlone(deps, t, () => followTransfer(deps, t));

  const requests = await watchedRequests(deps.db);
  // The newest block of each origin chain whose deposits have their confirmations.
  const confirmedTo = new Map<string, bigint>();
  for (const request of requests) {
    const origin = deps.config.networks.find((n) => n.chainId === request.originChainId && n.enabled && n.rpcUrl);
    if (!origin) continue;
    const client = evmClient(origin, 20_000);
    try {
      const headReadAt = new Date();
      const head = await client.getBlockNumber({ cacheTime: 0 });
      confirmedTo.set(request.originChainId, head - BigInt(confirmations - 1));
      await scanDeposits(deps.db, client, request, head, headReadAt, confirmations - 1);
    } catch (error) {
      deps.logger.warn({ err: error, request: request.id }, "local relayer: could not scan deposits");
    }
  }
  await planAll(deps, confirmedTo);

  for (const t of await unfinishedTransfers(deps.db)) if (t.status === "planned") await eachAlone(deps, t, () => signTransfer(deps, t));
  for (const t of await unfinishedTransfers(deps.db)) if (t.status === "signed") await eachAlone(deps, t, () => followTransfer(deps, t, RECEIPT_WAIT_MS));
  // Fills confirmed just now: their collections and excess refunds go out on the next pass.
  await planAll(deps, confirmedTo);
}

/** One transfer's chain failing (its node down) must not stop the pass for every other route: logged, tried again next pass. */
async function eachAlone(deps: RelayerDeps, transfer: { id: string; chainId: string }, work: () => Promise<unknown>): Promise<void> {
  await work().catch((error: Error) => deps.logger.warn({ err: error, transfer: transfer.id, chainId: transfer.chainId }, "local relayer: could not move a transfer on; next pass"));
}

/** Judges new deposits that have their confirmations, plans what follows from the books, and moves requests' states on. */
async function planAll(deps: RelayerDeps, confirmedTo: ReadonlyMap<string, bigint>): Promise<void> {
  const requests = await watchedRequests(deps.db);
  const ids = requests.map((r) => r.id);
  const [deposits, transfers] = await Promise.all([depositsOf(deps.db, ids), transfersOf(deps.db, ids)]);
  const relayer = relayerAccount(deps.config).address;
  for (const request of requests) {
    const own = deposits.filter((d) => d.requestId === request.id);
    let state = judgedState(request.state, own);
    const confirmed = confirmedTo.get(request.originChainId) ?? -1n;
    for (const deposit of own.filter((d) => d.disposition === null && d.blockNumber <= confirmed)) {
      const judged = judgeDeposit({ ...request, state }, deposit);
      await decideDeposit(deps.db, deposit.id, judged.disposition, judged.reason);
      deposit.disposition = judged.disposition;
      deposit.reason = judged.reason;
      state = judged.state;
    }
    // Saved before the transfers are planned: the next deposit is judged against it.
    if (state !== request.state) await updateRequest(deps.db, request.id, { state });
    const ownTransfers = transfers.filter((t) => t.requestId === request.id);
    for (const deposit of own) await planFor(deps, request, deposit, ownTransfers, relayer);
    const next = nextState(state, own, ownTransfers);
    if (next !== state) await updateRequest(deps.db, request.id, { state: next });
  }
}

const transferOf = (transfers: LocalBridgeTransferRow[], deposit: LocalBridgeDepositRow, kind: LocalTransferKind) =>
  transfers.find((t) => t.depositId === deposit.id && t.kind === kind && t.status !== "failed");

/** A fill that failed for good (reverted, or no liquidity); one whose nonce was taken is simply planned again. */
const fillFailed = (transfers: LocalBridgeTransferRow[], deposit: LocalBridgeDepositRow) =>
  !transferOf(transfers, deposit, "fill") && transfers.some((t) => t.depositId === deposit.id && t.kind === "fill" && t.status === "failed" && t.error !== NONCE_TAKEN);

async function planFor(deps: RelayerDeps, request: LocalBridgeRequestRow, deposit: LocalBridgeDepositRow, transfers: LocalBridgeTransferRow[], relayer: string) {
  const plan = (kind: LocalTransferKind, chainId: string, token: string, toAddress: string, amount: bigint) =>
    transferOf(transfers, deposit, kind) ? Promise.resolve() : planTransfer(deps.db, { requestId: request.id, depositId: deposit.id, kind, chainId, token, toAddress, amount });
  const origin = (kind: LocalTransferKind, toAddress: string, amount: bigint) => plan(kind, request.originChainId, request.originToken, toAddress, amount);

  if (deposit.disposition === "refund") return origin("refund", deposit.sender, deposit.amount);
  if (deposit.disposition !== "fill") return;
  if (fillFailed(transfers, deposit)) return origin("refund", deposit.sender, deposit.amount);
  const fill = transferOf(transfers, deposit, "fill");
  if (!fill) return plan("fill", request.destinationChainId, request.destinationToken, request.recipient, request.amount);
  if (fill.status !== "confirmed") return;
  await origin("collect", relayer, request.amountToSend);
  if (deposit.amount > request.amountToSend) await origin("refund", deposit.sender, deposit.amount - request.amountToSend);
}

/**
 * The state the request's judged deposits put it in. The first deposit judged decides it
 * (`judgeDeposit`); a pass cut short between a judgement and saving the state (a crash, a
 * lost connection) left it `open`, and a second deposit would then be filled as well.
 */
export function judgedState(state: LocalRequestState, deposits: ReadonlyArray<Pick<LocalBridgeDepositRow, "disposition">>): LocalRequestState {
  if (state !== "open") return state;
  if (deposits.some((d) => d.disposition === "fill")) return "filling";
  if (deposits.some((d) => d.disposition === "refund")) return "refunding";
  return state;
}

/** A request's state from its deposits and their transfers. */
function nextState(state: LocalRequestState, deposits: LocalBridgeDepositRow[], transfers: LocalBridgeTransferRow[]): LocalRequestState {
  const filling = deposits.find((d) => d.disposition === "fill");
  const confirmed = (d: LocalBridgeDepositRow, kind: LocalTransferKind) => transferOf(transfers, d, kind)?.status === "confirmed";
  if (state === "filling" && filling) {
    if (confirmed(filling, "fill")) return "filled";
    if (fillFailed(transfers, filling)) return "failed";
  }
  const refundsDone = deposits.filter((d) => d.disposition === "refund").every((d) => confirmed(d, "refund"));
  if (state === "refunding" && refundsDone) return "refunded";
  if (state === "failed" && filling && confirmed(filling, "refund") && refundsDone) return "refunded";
  return state;
}
