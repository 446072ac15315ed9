import type { Config, Network, Token } from "../../config/index.ts";
import type { NewPayment, PaymentRow } from "../../db/schema/index.ts";
import type { Prompts } from "../../domain/prompts.ts";
import type { PaymentKind, RailContext } from "./context.ts";

/**
 * The payment method port, one per kind of payment a network type takes (a direct contract
 * payment, a deposit address, Solana Pay) or one for a kind whatever the network (cross-chain,
 * through a bridge): what a payment of the kind shows the customer, whether the service holds
 * its funds, and how a submitted transaction is checked. Callers reach it by `methodFor(network, payment)`.
 */
export interface PaymentMethod {
  readonly kind: PaymentKind;
  /**
   * Reads a transaction a client submitted for `payment` from the chain and returns what
   * in it pays the payment (nothing: it does not). Throws ValidationError for a
   * transaction that is unknown or failed, ServiceUnavailableError when the chain cannot be read.
   * Left out by a method whose payments are paid by no transaction on their own chain.
   */
  verifySubmission?(ctx: RailContext, payment: PaymentRow, network: Network, transaction: string): Promise<SubmittedCredit[]>;
  /** Where `verifySubmission` is left out: how such a payment is verified instead (the 400 a submission gets says so). */
  readonly verifiedInstead?: string;
  /** The URI a wallet opens from a QR code (EIP-681, Solana Pay); left out (or null) when there is none. */
  paymentUri?(payment: PaymentRow): string | null;
  /** What a customer's wallet sends (signed intent, transactions), merged into the full payment view; left out (or null) if nothing. */
  walletInstructions?(payment: PaymentRow, network: Network): Record<string, unknown> | null;
  /**
   * What the hosted checkout page's wallet button sends for `payment` now, through the
   * browser wallet interface it names (null: nothing to send now); left out where no browser wallet pays.
   */
  checkoutWallet?(payment: PaymentRow, now: Date): CheckoutWallet | null;
  /**
   * Whether money for `payment` arrives at an address of its own that the service holds
   * (a deposit address, a forwarder): any transfer of the token there pays it, it is swept
   * to the merchant, and what is owed back is refunded from there. Left out where the
   * customer pays the merchant's own wallet (Solana Pay: only a transfer carrying the
   * payment's reference counts, and what is owed back is the merchant's to return) or a bridge does.
   */
  holdsFunds?(payment: PaymentRow): boolean;
  /**
   * The addresses that receive a payment the service holds the funds of (its deposit
   * address; on Solana also that key's token account): a refund sent to one of them moves
   * nothing, yet would count as paid back. Left out where it holds none.
   */
  ownAddresses?(payment: PaymentRow): string[];
}

/**
 * A payment method the create endpoints (`POST /payments`, `POST /deposits`) make payments
 * of: it says where it can take them and fills its part of the new row. (A cross-chain
 * payment is made by its own service, which asks its bridge for a quote.)
 */
export interface CreatableMethod extends PaymentMethod {
  verifySubmission: NonNullable<PaymentMethod["verifySubmission"]>;
  /** Whether `network` is set up (contracts deployed) for payments of this kind: a static capability. */
  supports(network: Network): boolean;
  /** Why `network` cannot take payments of this kind now (contracts or signer missing); null when it can. */
  unavailable(config: Config, network: Network): string | null;
  /**
   * Whether these payments carry the service fee (`FEE_BPS`): only where it is collected —
   * the EVM settlement contract pays it to `FEE_RECIPIENT` (a sweep does, for one paid by a
   * transfer to its address). A fee not collected is not shown either.
   */
  readonly collectsFee: boolean;
  /**
   * The method's part of a new payment row: receive/deposit address, signed intent, contract.
   * `ctx.db` is the pool, not the creating transaction: what the method stores for itself
   * (Solana's claim of a pooled deposit address) must outlive a creation that rolls back.
   */
  prepare(ctx: PrepareContext, request: PrepareRequest): Promise<PreparedPayment>;
  /**
   * Restocks what `prepare` draws on, in the worker (Solana: derives deposit addresses ahead of
   * need, from a seed only the worker holds, so the API hands them out without any key). Safe to
   * run twice at once or after a crash; what it did, in words, or null when nothing was to do.
   * Methods whose `prepare` needs nothing stocked leave it out.
   */
  replenish?(ctx: RailContext): Promise<string | null>;
  /** What `/payments/contract/{chainId}` describes for a network; null when there is no settlement contract there. */
  contract?(network: Network): Record<string, unknown> | null;
}

/**
 * What `prepare` may use: the configuration, the database pool, and a way to ask the worker
 * to `replenish` at once (what `prepare` draws on ran out).
 */
export type PrepareContext = { config: Config; db: RailContext["db"]; prompts?: Pick<Prompts, "replenish"> };

export type PrepareRequest = {
  paymentId: string;
  kind: PaymentKind;
  network: Network;
  token: Token;
  /** Owed, smallest units. */
  amount: bigint;
  /** Service fee inside `amount`, smallest units. */
  fee: bigint;
  /** The same fee in basis points of `amount` (`fee` is `amount * feeBps / 10000` rounded down). */
  feeBps: number;
  feeRecipient: string;
  merchantWallet: string;
  expiresAt: Date;
};

/** The columns of a new payment row that the method decides. */
export type PreparedPayment = Required<Pick<NewPayment, "receiveAddress" | "contractAddress" | "feeRecipient" | "intentSignature" | "intentDeadline" | "contractCall">>;

/**
 * A browser wallet's part of a checkout: the page checks the balance, then sends the
 * transactions in order, each once the previous one is mined.
 */
export type CheckoutWallet = {
  /** The browser wallet interface the page drives: `eip1193` is the injected `window.ethereum`. */
  protocol: "eip1193";
  /** The chain the wallet must be on, as that interface names it (EIP-1193: the 0x-hex chain id). */
  chain: string;
  /** The token the payer needs, and how much of it (smallest units), checked before anything is sent. */
  token: string;
  amount: string;
  transactions: Array<{ description: string; to: string; data: string; value: string }>;
};

/** One credit found in a submitted transaction; it counts until ingest passes its block. */
export type SubmittedCredit = { txHash: string; logIndex: number; blockNumber: bigint; blockTimestamp: Date; amount: bigint };
