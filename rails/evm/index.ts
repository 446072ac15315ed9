import type { Rail } from "../types.ts";
import { chainHead, finalizedHead, headTime } from "./chainHead.ts";
import { checkoutWallet } from "./checkoutWallet.ts";
import { evmClient } from "./client.ts";
import { contractDescription } from "./contractDescription.ts";
import { depositBalance, nativeDepositBalance } from "./depositBalance.ts";
import { normalizeEvmAddress } from "../../domain/evmAddress.ts";
import { operatorStatus } from "./operatorStatus.ts";
import { preparePayment } from "./preparePayment.ts";
import { announceIndexerCommits } from "./readModel/announceIngest.ts";
import { indexedBlocks } from "./readModel/indexedBlocks.ts";
import { loadIndexedCredits } from "./readModel/loadCredits.ts";
import { replayRange } from "./ingest/replayRange.ts";
import { newIndexedEvidence } from "./readModel/newEvidence.ts";
import { pruneUnreferencedTransfers } from "./readModel/pruneUnreferenced.ts";
import { cancelTransferOut } from "./transfers/cancelTransferOut.ts";
import { evidenceHorizons } from "./readModel/evidenceHorizons.ts";
import { executeTransferOut } from "./transfers/executeTransferOut.ts";
import { recheckTransferOut } from "./transfers/recheckTransferOut.ts";
import { recoverDeposits } from "./recoverDeposits.ts";
import { supportsKind, unavailable } from "./unavailable.ts";
import { verifySignedMessage } from "./verifySignedMessage.ts";
import { transactionSender } from "./transactionSender.ts";
import { verifySubmission } from "./verifySubmission.ts";
import { paymentUri, walletInstructions } from "./walletInstructions.ts";

/**
 * EVM chains: contract payments through PaymentSettlement (an EIP-712 intent the
 * contract checks), deposit addresses as CREATE2 forwarders swept by the operator,
 * evidence indexed by Ponder (`indexer/`) and read through `readModel/`.
 */
export const evmRail: Rail = {
  name: "evm",
  supports: supportsKind,
  unavailable,
  // The settlement contract pays the fee out with the merchant's share.
  collectsFee: (kind) => kind === "payment",
  normalizeAddress: normalizeEvmAddress,
  prepare: (ctx, request) => preparePayment(ctx.config, request),
  paymentUri,
  walletInstructions,
  holdsFunds: (payment) => payment.receiveAddress !== null,
  ownAddresses: (payment) => (payment.receiveAddress ? [payment.receiveAddress] : []),
  checkoutWallet,
  verifySignedMessage,
  messageSigner: "eip1193",
  contract: contractDescription,
  indexedHeads: (ctx) => indexedBlocks(ctx.db, ctx.config.indexer.viewsSchema),
  evidenceHorizons: (ctx) => evidenceHorizons(ctx.db, ctx.config.indexer.viewsSchema),
  loadCredits: (ctx, payments) => loadIndexedCredits(ctx, payments),
  // Money reaches an EVM payment on its own chain: nothing is ever on its way.
  inTransit: async () => new Map(),
  newEvidence: newIndexedEvidence,
  pruneIngested: pruneUnreferencedTransfers,
  ingestTerms: { unit: "blocks", follower: "the indexer" },
  ingestRole: "indexer",
  replay: replayRange,
  evidenceAheadOfHead: false,
  refreshEvidence: async () => {},
  announceIngest: announceIndexerCommits,
  verifySubmission,
  transactionSender: (network, transaction, timeoutMs) => transactionSender(evmClient(network, timeoutMs), transaction),
  chainHead,
  headTime,
  finalizedHead,
  // The indexer drops a transfer a reorg took back as it follows the chain: a row at or
  // below the finalized block is final.
  finalEvidenceHead: (_ctx, network, timeoutMs) => finalizedHead(network, timeoutMs),
  balanceOf: (network, payment, timeoutMs) => depositBalance(evmClient(network, timeoutMs), payment),
  // The forwarder moves native coin too (`deployAndSweepNative`).
  nativeBalance: nativeDepositBalance,
  // An ERC-20 transfer credits the address itself, whatever it is: what cannot receive is in `unreceivableAddresses`.
  refundAddressProblem: async () => null,
  // Any EVM address can hold tokens; the unreceivable ones (null address, token and service contracts) are refused offline.
  settlementWalletProblem: async () => null,
  operatorStatus,
  executeTransferOut,
  recheckTransferOut,
  cancelTransferOut: (ctx, rowId, options) => cancelTransferOut(ctx, rowId, options),
  recoverDeposits,
};
