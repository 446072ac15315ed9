import type { ChainPort } from "../types.ts";
import { chainHead, finalizedHead, headTime } from "./chainHead.ts";
import { evmClient } from "./client.ts";
import { evmNetworkType } from "./networkType.ts";
import { evmRotation } from "./transport.ts";
import { depositBalance, nativeDepositBalance } from "./depositBalance.ts";
import { normalizeEvmAddress } from "../../domain/evmAddress.ts";
import { operatorStatus } from "./operatorStatus.ts";
import { recoverDeposits } from "./recoverDeposits.ts";
import { cancelTransferOut } from "./transfers/cancelTransferOut.ts";
import { executeTransferOut } from "./transfers/executeTransferOut.ts";
import { recheckTransferOut } from "./transfers/recheckTransferOut.ts";
import { verifySignedMessage } from "./verifySignedMessage.ts";

/** EVM chains: read through viem; sweeps and refunds signed by the operator (`transfers/`). */
export const evmChain: ChainPort = {
  type: "evm",
  chainHead,
  headTime,
  finalizedHead,
  providerRotation: async (network, urls) => evmRotation(network, urls),
  // The indexer drops a transfer a reorg took back as it follows the chain: a row at or
  // below the finalized block is final.
  finalEvidenceHead: (_ctx, network, timeoutMs) => finalizedHead(network, timeoutMs),
  balanceOf: (network, payment, timeoutMs) => depositBalance(evmClient(network, timeoutMs), payment),
  // The forwarder moves native coin too (`deployAndSweepNative`).
  nativeBalance: nativeDepositBalance,
  operatorStatus,
  // An ERC-20 transfer credits the address itself, whatever it is: what cannot receive is in `unreceivableAddresses`.
  refundAddressProblem: async () => null,
  // Any EVM address can hold tokens; the unreceivable ones (null address, token and service contracts) are refused offline.
  settlementWalletProblem: async () => null,
  normalizeAddress: normalizeEvmAddress,
  addressDescription: evmNetworkType.address.description,
  nullAddress: "0x0000000000000000000000000000000000000000",
  verifySignedMessage,
  messageSigner: "eip1193",
  executeTransferOut,
  recheckTransferOut,
  cancelTransferOut: (ctx, rowId, options) => cancelTransferOut(ctx, rowId, options),
  recoverDeposits,
  // x402's EVM package (EIP-3009's ABI and types) loads on the first signed refund, not with every EVM process.
  merchantSignedRefunds: {
    prepare: async (...args) => (await import("./signedRefunds/merchantSignedRefunds.ts")).evmMerchantSignedRefunds.prepare(...args),
    accept: async (...args) => (await import("./signedRefunds/merchantSignedRefunds.ts")).evmMerchantSignedRefunds.accept(...args),
  },
};
