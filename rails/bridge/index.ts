import { ConflictError, NotFoundError, ValidationError } from "../../domain/errors.ts";
import { evmRail } from "../evm/index.ts";
import { normalizeEvmAddress } from "../../domain/evmAddress.ts";
import type { Rail } from "../types.ts";
import { destinationsFrom } from "./crossChainRoutes.ts";
import { bridgeInTransit, loadBridgeCredits } from "./loadBridgeCredits.ts";

export { bridgeAdapter } from "./adapters.ts";
export { crossChainSources, destinationsFrom, originNetwork } from "./crossChainRoutes.ts";
export { observeBridge, type BridgeObservation, type ObservedFill } from "./observeBridge.ts";
export { quoteCrossChain, relayRefundAddress, type CrossChainQuote, type CrossChainQuoteRequest } from "./quoteCrossChain.ts";
export { routeMinimum } from "./routeMinimum.ts";

const noMoneyOut = () =>
  new ConflictError("A cross-chain payment moves no money out of the service: the bridge fills the merchant's wallet and refunds the customer itself.", "not_supported");

/**
 * Cross-chain payments (`kind: "cross_chain"`): the customer pays a bridge's deposit
 * address on another chain and the bridge fills the merchant's wallet on the payment's
 * own (EVM) chain. The payment row lives on the destination; its bridge request (origin,
 * deposit address, progress, each leg) in `bridge_requests`, kept up to date by the
 * `bridge` job. Credits are the destination fills only, verified from their receipts, so
 * `settle` counts confirmations on the merchant's chain and the origin leg never counts.
 *
 * The bridge ingests nothing of its own (the `bridge` job reads the bridge and prompts
 * reconciliation), holds no funds and sends nothing: what only a chain rail can do is
 * refused, and what the destination chain answers comes from the EVM rail.
 */
export const bridgeRail: Rail = {
  name: "bridge",
  supports: (network, kind) => kind === "cross_chain" && network.type === "evm",
  unavailable: (config, network, kind) => {
    if (kind !== "cross_chain" || network.type !== "evm") return `${network.name} cannot take this kind of payment through a bridge`;
    const served = config.networks.some((origin) => destinationsFrom(config, origin).some((n) => n.id === network.id));
    return served ? null : `no bridge is configured to deliver payments on ${network.name}`;
  },
  // A cross-chain payment carries no service fee (the bridge's own is in what the customer sends).
  collectsFee: () => false,
  normalizeAddress: normalizeEvmAddress,
  // The bridge quote is taken by the cross-chain creation itself (it needs the origin): the row needs nothing more.
  prepare: async () => ({ receiveAddress: null, contractAddress: null, feeRecipient: null, intentSignature: null, intentDeadline: null, contractCall: null }),
  paymentUri: () => null,
  walletInstructions: () => null,
  // The customer pays on the origin chain, to the bridge's deposit address (the creation response and
  // /payments/cross-chain/status show it); the payment row is the destination leg, with nothing to send to.
  holdsFunds: () => false,
  ownAddresses: () => [],
  checkoutWallet: () => null,
  // The customer paid from an EVM origin chain; the service refunds nothing itself (the bridge does).
  verifySignedMessage: evmRail.verifySignedMessage,
  messageSigner: null,
  contract: () => null,
  indexedHeads: async () => new Map(),
  evidenceHorizons: async () => new Map(),
  loadCredits: (ctx, payments) => loadBridgeCredits(ctx, payments),
  inTransit: bridgeInTransit,
  // Nothing is ingested per chain: the `bridge` job reads each request and prompts its reconcile.
  newEvidence: async (_ctx, _network, cursor, head) => ({ paymentIds: [], cursor: cursor ?? { block: head, windowDigest: null } }),
  // The bridge job prompts reconcile itself whenever a leg moves; nothing arrives ahead of a head.
  evidenceAheadOfHead: false,
  ingestTerms: { unit: "blocks", follower: "the bridge job" },
  ingestRole: "worker",
  replay: async () => {
    throw new ValidationError("network", "A bridge has no chain of its own to replay: replay the origin or destination network.");
  },
  refreshEvidence: async () => {},
  announceIngest: async () => true,
  verifySubmission: async () => {
    throw new ValidationError("txHash", "Invalid field 'txHash': a cross-chain payment is verified from its bridge (GET /payments/cross-chain/status/{paymentId}); there is nothing to submit");
  },
  chainHead: evmRail.chainHead,
  headTime: evmRail.headTime,
  finalizedHead: evmRail.finalizedHead,
  finalEvidenceHead: evmRail.finalEvidenceHead,
  balanceOf: async () => {
    throw new NotFoundError("A cross-chain payment has no deposit address on its own chain; the bridge's deposit address is in GET /payments/cross-chain/status/{paymentId}.");
  },
  // Nothing is refunded from here (the bridge returns what it holds on the origin chain).
  refundAddressProblem: async () => null,
  settlementWalletProblem: async () => null,
  operatorStatus: async () => null,
  executeTransferOut: async () => {
    throw noMoneyOut();
  },
  recheckTransferOut: async () => {
    throw noMoneyOut();
  },
  cancelTransferOut: async () => {
    throw noMoneyOut();
  },
};
