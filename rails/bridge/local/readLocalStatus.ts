import type { BridgeProgress } from "../../../domain/bridgeStatus.ts";
import type { Db } from "../../../db/client.ts";
import type { BridgeStatus } from "../adapter.ts";
import { depositsOf, findRequest, transfersOf, type LocalBridgeRequestRow, type LocalBridgeTransferRow } from "./books.ts";

/**
 * Where a local bridge request stands, from the relayer's books, in Relay's words:
 * `waiting` (no deposit), `depositing` (a deposit is in; also while it is being returned),
 * `pending` (the fill is planned), `submitted` (the fill is signed and sent), `success`
 * (the fill is confirmed), `failure` (the fill failed; the deposit goes back), `refund`
 * (every deposit that was not filled went back). Transactions as the relayer signed them.
 * A request the books do not hold (a recreated sandbox) is a failure saying so.
 */
export async function readLocalStatus(db: Db, requestId: string): Promise<BridgeStatus> {
  const request = await findRequest(db, requestId);
  if (!request) {
    return {
      requestId,
      progress: "failure",
      originTxHashes: [],
      destinationTxHashes: [],
      refundTxHashes: [],
      updatedAt: null,
      seenThrough: null,
      failReason: "the local bridge has no record of this request (its chains were recreated)",
    };
  }
  const [deposits, transfers] = await Promise.all([depositsOf(db, [requestId]), transfersOf(db, [requestId])]);
  const hashes = (kind: LocalBridgeTransferRow["kind"]) =>
    transfers.filter((t) => t.kind === kind && t.txHash && t.status !== "failed").map((t) => t.txHash!);
  const fill = transfers.find((t) => t.kind === "fill" && t.status !== "failed");
  const failedFill = transfers.find((t) => t.kind === "fill" && t.status === "failed");
  const refundReasons = deposits.filter((d) => d.disposition === "refund" && d.reason).map((d) => d.reason!);
  return {
    requestId,
    progress: progressOf(request, deposits.length > 0, fill),
    originTxHashes: [...new Set(deposits.map((d) => d.txHash))],
    destinationTxHashes: hashes("fill"),
    refundTxHashes: hashes("refund"),
    updatedAt: request.updatedAt,
    // The relayer records every deposit of the blocks it scanned, confirmed or not.
    seenThrough: request.scannedThrough,
    ...(refundReasons.length > 0 ? { details: `refunded: ${refundReasons[0]}` } : {}),
    ...(request.state === "failed" || (request.state === "refunded" && failedFill) ? { failReason: `the fill failed: ${failedFill?.error ?? "unknown"}` } : {}),
  };
}

function progressOf(request: LocalBridgeRequestRow, deposited: boolean, fill: LocalBridgeTransferRow | undefined): BridgeProgress {
  switch (request.state) {
    case "open":
      return deposited ? "depositing" : "waiting";
    case "filling":
      return fill?.status === "signed" || fill?.status === "confirmed" ? "submitted" : "pending";
    case "filled":
      return "success";
    case "refunding":
      return "depositing";
    case "failed":
      return "failure";
    case "refunded":
      return "refund";
  }
}
