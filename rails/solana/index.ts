import { findTransferOut } from "../../db/transfersOut.ts";
import type { Rail } from "../types.ts";
import { normalizeSolanaAddress } from "../../domain/solanaAddress.ts";
import { forgetSolanaChains } from "./readModel/forgetChains.ts";
import { ingestHeadOf, solanaEvidenceHorizons, solanaIndexedHeads } from "./readModel/ingestHeads.ts";
import { loadSolanaCredits } from "./readModel/loadCredits.ts";
import { newSolanaEvidence } from "./readModel/newEvidence.ts";
import { supportsKind, unavailable } from "./unavailable.ts";
import { verifySignedMessage } from "./verifySignedMessage.ts";

// Loaded on a method's first call (Bun's require loads an ES module synchronously, which
// the rail's synchronous methods need). What every deployment calls — addresses, the read
// model, availability — is imported above and loads no Solana library.
const lib = () => require("./libraryBacked.ts") as typeof import("./libraryBacked.ts");

/**
 * Solana: direct payments as Solana Pay transfers to the merchant carrying a
 * per-payment reference, deposit addresses as per-payment keys (SLIP-0010 from a seed only
 * the worker holds, derived ahead of need into a pool the API hands out from) whose token
 * accounts are swept by the operator, evidence from the
 * subscriber (`ingest/`, the `solana` role): balance changes of watched token accounts,
 * detected at `confirmed`, final at `finalized`.
 */
export const solanaRail: Rail = {
  name: "solana",
  supports: supportsKind,
  unavailable,
  // A Solana Pay transfer pays the merchant's wallet whole, and a deposit is swept whole: no
  // fee is collected, so none is shown (docs/decisions/solana-pay-fee.md).
  collectsFee: () => false,
  normalizeAddress: normalizeSolanaAddress,
  prepare: (ctx, request) => lib().preparePayment(ctx, request),
  replenish: (ctx) => lib().replenishDepositPool(ctx),
  paymentUri: (payment) => lib().paymentUri(payment),
  walletInstructions: (payment, network) => lib().walletInstructions(payment, network),
  // No browser-wallet button on Solana yet: the checkout page shows the Solana Pay QR code.
  // A deposit's account is derived from the service's seed; Solana Pay pays the merchant's wallet.
  holdsFunds: (payment) => payment.kind === "deposit",
  ownAddresses: (payment) => (payment.kind === "deposit" ? lib().depositAccounts(payment) : []),
  checkoutWallet: () => null,
  verifySignedMessage,
  messageSigner: "solana",
  contract: (network) => lib().contractDescription(network),
  indexedHeads: (ctx) => solanaIndexedHeads(ctx.db, ctx.config),
  // The block time through which the subscriber has polled every watched account.
  evidenceHorizons: (ctx) => solanaEvidenceHorizons(ctx.db),
  loadCredits: (ctx, payments) => loadSolanaCredits(ctx, payments),
  newEvidence: newSolanaEvidence,
  // Money reaches a Solana payment's own accounts directly: nothing is ever in transit.
  inTransit: async () => new Map(),
  evidenceAheadOfHead: true,
  ingestTerms: { unit: "slots", follower: "the subscriber" },
  ingestRole: "solana",
  forgetChains: forgetSolanaChains,
  replay: (ctx, network, range, options) => lib().replaySlots(ctx, network, range, options),
  refreshEvidence: (ctx, payment, network) => lib().refreshEvidence(ctx, payment, network),
  // The subscriber NOTIFYs itself when it commits (its tables come with the migrations).
  announceIngest: async () => true,
  verifySubmission: (ctx, payment, network, transaction) => lib().verifySubmission(ctx, payment, network, transaction),
  transactionSender: (network, transaction, timeoutMs) => lib().transactionSender(network, transaction, timeoutMs),
  chainHead: (network, timeoutMs) => lib().chainHead(network, timeoutMs),
  finalizedHead: (network, timeoutMs) => lib().finalizedHead(network, timeoutMs),
  // A credit is final once the subscriber has seen it at `finalized`, not when the node's
  // finalized slot passes it: one a dropped fork carried is then still to be removed. Below
  // the subscriber's watermark every credit is checked; before its first pass, none is.
  finalEvidenceHead: async (ctx, network) => (await ingestHeadOf(ctx.db, network.chainId))?.finalizedSlot ?? -1n,
  balanceOf: (network, payment, timeoutMs) => lib().balanceOf(network, payment, timeoutMs),
  refundAddressProblem: (network, payment, address, timeoutMs) => lib().refundAddressProblem(network, payment, address, timeoutMs),
  settlementWalletProblem: (network, address, timeoutMs) => lib().settlementWalletProblem(network, address, timeoutMs),
  operatorStatus: (config, network, timeoutMs) => lib().operatorStatus(config, network, timeoutMs),
  executeTransferOut: (ctx, rowId) => lib().executeTransferOut(ctx, rowId),
  // A Solana sweep or refund is confirmed only once finalized: no reorg can take it back.
  recheckTransferOut: async (ctx, rowId) => (await findTransferOut(ctx.db, rowId))!,
  cancelTransferOut: (ctx, rowId) => lib().cancelTransferOut(ctx, rowId),
  recoverDeposits: (ctx, network, options) => lib().recoverDeposits(ctx, network, options),
};
