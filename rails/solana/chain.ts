import { findTransferOut } from "../../db/transfersOut.ts";
import type { ChainPort } from "../types.ts";
import { lib } from "./library.ts";
import { solanaNetworkType } from "./networkType.ts";
import { normalizeSolanaAddress } from "../../domain/solanaAddress.ts";
import { ingestHeadOf } from "./readModel/ingestHeads.ts";
import { verifySignedMessage } from "./verifySignedMessage.ts";

/** Solana: read over its RPC; the operator signs sweeps of deposit keys' token accounts and refunds (`transfers/`). */
export const solanaChain: ChainPort = {
  type: "solana",
  chainHead: (network, timeoutMs) => lib().chainHead(network, timeoutMs),
  finalizedHead: (network, timeoutMs) => lib().finalizedHead(network, timeoutMs),
  // Solana's libraries load on use, as the rest of its rail.
  providerRotation: async (network, urls) => (await import("./connection.ts")).solanaRotation(network, urls),
  // A credit is final once the subscriber has seen it at `finalized`, not when the node's
  // finalized slot passes it: one a dropped fork carried is then still to be removed. Below
  // the subscriber's watermark every credit is checked; before its first pass, none is.
  finalEvidenceHead: async (ctx, network) => (await ingestHeadOf(ctx.db, network.chainId))?.finalizedSlot ?? -1n,
  balanceOf: (network, payment, timeoutMs) => lib().balanceOf(network, payment, timeoutMs),
  operatorStatus: (config, network, timeoutMs) => lib().operatorStatus(config, network, timeoutMs),
  refundAddressProblem: (network, payment, address, timeoutMs) => lib().refundAddressProblem(network, payment, address, timeoutMs),
  settlementWalletProblem: (network, address, timeoutMs) => lib().settlementWalletProblem(network, address, timeoutMs),
  normalizeAddress: normalizeSolanaAddress,
  addressDescription: solanaNetworkType.address.description,
  nullAddress: "11111111111111111111111111111111",
  verifySignedMessage,
  messageSigner: "solana",
  executeTransferOut: (ctx, rowId) => lib().executeTransferOut(ctx, rowId),
  // A Solana sweep or refund is confirmed only once finalized: no reorg can take it back.
  recheckTransferOut: async (ctx, rowId) => (await findTransferOut(ctx.db, rowId))!,
  cancelTransferOut: (ctx, rowId) => lib().cancelTransferOut(ctx, rowId),
  recoverDeposits: (ctx, network, options) => lib().recoverDeposits(ctx, network, options),
  merchantSignedRefunds: {
    prepare: (...args) => lib().solanaMerchantSignedRefunds.prepare(...args),
    accept: (...args) => lib().solanaMerchantSignedRefunds.accept(...args),
  },
};
