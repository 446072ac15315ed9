import type { x402Facilitator } from "@x402/core/facilitator";
import type { Config, Network } from "../../config/index.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { X402SettlementRow } from "../../db/x402Settlements.ts";
import type { AgentPaymentChain, SettleOutcome } from "../ports/agentPayments.ts";
import { evmX402 } from "./evmChain.ts";

export type { SettleOutcome, SettlementTransfer } from "../ports/agentPayments.ts";

/** The terms of an authorization that the facilitator keys and bounds it by. */
export type X402Authorization = { payer: string; nonce: string; validBefore: bigint };
export type AuthorizationCheck = ({ ok: true } & X402Authorization) | { ok: false; reason: string; message: string };

/**
 * The worker's means: x402's facilitator with the operator's keys, where to record a
 * transaction's id before it is sent (or waited for), the chain lock's database, and the
 * payment's merchant wallet and fee (what a settlement contract pays out).
 */
export type SettleContext = {
  config: Config;
  databaseUrl: string;
  facilitator: () => Promise<x402Facilitator>;
  recordSigned: (txHash: string) => Promise<void>;
  payment: Pick<PaymentRow, "merchantWallet" | "feeAmount" | "feeRecipient">;
};

/** How x402's `exact` scheme works on one network type: the payload, addresses, balances and settling (the port's part, `AgentPaymentChain`, and the offer's checks). */
export type X402Chain = AgentPaymentChain & {
  /** The payer the payload names, if it names one (refusals carry it). */
  payerOf(payload: unknown): string | undefined;
  /** Whether two addresses are the same account, as the chain spells addresses. */
  sameAddress(a: unknown, b: unknown): boolean;
  /**
   * What an authorization must pay on `network` for a merchant whose settlement wallet there is
   * `wallet`: the wallet itself, or a contract that passes the money on less the service fee
   * (null: the network cannot settle one); and the refusal's reason when it pays elsewhere.
   */
  destination(network: Network, wallet: string): { payTo: string | null; merchantWallet: string; collectsFee: boolean; reason: string; message: string };
  /** The authorization's own terms: it must pay `payTo` exactly `amount` (smallest units, decimal). */
  authorization(payload: unknown, payTo: string, amount: string): AuthorizationCheck;
  /** Submits the authorization (or finds it already submitted) and reads what it paid. */
  settle(ctx: SettleContext, network: Network, row: X402SettlementRow): Promise<SettleOutcome>;
};

/**
 * Solana's side, loaded on first use (Bun's require loads it synchronously, as
 * `rails/solana/library.ts` does): an EVM-only deployment's API and workers never load
 * Solana's libraries (~18 MB a process).
 */
const svmX402 = (): X402Chain => (require("./svmChain.ts") as typeof import("./svmChain.ts")).svmX402;

/** The x402 side of a served network's type. */
export const x402ChainOf = (network: Pick<Network, "type">): X402Chain => (network.type === "solana" ? svmX402() : evmX402);

/** The payer a payload names on whichever type it is shaped for, read before its network is known (EVM's first: Solana's side loads only if it is not one). */
export const payerOfAny = (payload: unknown): string | undefined => evmX402.payerOf(payload) ?? svmX402().payerOf(payload);
