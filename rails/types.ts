import type pg from "pg";
import type { Config, Network, Token } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { NewPayment, PaymentRow, TransferOutRow } from "../db/schema/index.ts";
import type { Credit } from "../domain/settle.ts";
import type { Prompts } from "../domain/prompts.ts";
import type { TransferContext } from "./transferLedger.ts";

/** The Postgres channel every rail's ingest announces its commits on (reconciliation listens). */
export const INDEXED_CHANNEL = "stablepay_indexed";

/**
 * The Rail port: everything that differs between the ways money arrives (EVM, Solana,
 * a bridge) sits behind this one interface, one implementation per rail, registered
 * by network type in `rails/index.ts`. Nothing outside `rails/` asks which chain a
 * payment is on; it asks the payment's rail.
 */
export interface Rail {
  readonly name: RailName;

  // ── Creating a payment ──────────────────────────────────────────────────────────
  /** Whether `network` is set up (contracts deployed) for payments of `kind`: a static capability. */
  supports(network: Network, kind: PaymentKind): boolean;
  /** Why `network` cannot take payments of `kind` now (contracts or signer missing); null when it can. */
  unavailable(config: Config, network: Network, kind: PaymentKind): string | null;
  /**
   * Whether payments of `kind` here carry the service fee (`FEE_BPS`): only where it is
   * collected — the EVM settlement contract pays it to `FEE_RECIPIENT` (a sweep does, for one
   * paid by a transfer to its address). A fee not collected is not shown either.
   */
  collectsFee(kind: PaymentKind): boolean;
  /** The canonical form of an address on this rail (checksummed, base58…), or null if it is not one. */
  normalizeAddress(address: string): string | null;
  /**
   * The rail's part of a new payment row: receive/deposit address, signed intent, contract.
   * `ctx.db` is the pool, not the creating transaction: what the rail stores for itself
   * (Solana's claim of a pooled deposit address) must outlive a creation that rolls back.
   */
  prepare(ctx: PrepareContext, request: PrepareRequest): Promise<PreparedPayment>;
  /**
   * Restocks what `prepare` draws on, in the worker (Solana: derives deposit addresses ahead of
   * need, from a seed only the worker holds, so the API hands them out without any key). Safe to
   * run twice at once or after a crash; what it did, in words, or null when nothing was to do.
   * Rails whose `prepare` needs nothing stocked leave it out.
   */
  replenish?(ctx: RailContext): Promise<string | null>;

  // ── Showing it ─────────────────────────────────────────────────────────────────
  /** The URI a wallet opens from a QR code (EIP-681, Solana Pay), or null. */
  paymentUri(payment: PaymentRow): string | null;
  /** What a customer's wallet sends (signed intent, transactions), merged into the full payment view; null if nothing. */
  walletInstructions(payment: PaymentRow, network: Network): Record<string, unknown> | null;
  /**
   * What the hosted checkout page's wallet button sends for `payment` now, through the
   * browser wallet interface the rail names (null: nothing to send, or no browser wallet).
   */
  checkoutWallet(payment: PaymentRow, now: Date): CheckoutWallet | null;
  /**
   * Whether money for `payment` arrives at an address of its own that the service holds
   * (a deposit address, a forwarder): any transfer of the token there pays it, it is swept
   * to the merchant, and what is owed back is refunded from there. False when the customer
   * pays the merchant's own wallet (Solana Pay: only a transfer carrying the payment's
   * reference counts, and what is owed back is the merchant's to return).
   */
  holdsFunds(payment: PaymentRow): boolean;
  /**
   * The addresses that receive a payment the service holds the funds of (its deposit
   * address; on Solana also that key's token account): a refund sent to one of them moves
   * nothing, yet would count as paid back. Empty when it holds none.
   */
  ownAddresses(payment: PaymentRow): string[];
  /**
   * Whether `signature` is `signer`'s signature of `message` as a wallet of this rail signs a
   * text (EVM: EIP-191 `personal_sign`; Solana: ed25519 `signMessage`). A paying address signs
   * for a refund to another address so; a malformed signature is false, never an error.
   */
  verifySignedMessage(signer: string, message: string, signature: string): Promise<boolean>;
  /**
   * The browser wallet interface the checkout page asks for such a signature through
   * (`eip1193`: the injected `window.ethereum`; `solana`: an injected Solana wallet's
   * `signMessage`); null where the service refunds nothing itself.
   */
  readonly messageSigner: "eip1193" | "solana" | null;
  /** What `/payments/contract/{chainId}` describes for a network; null when the rail has no settlement contract there. */
  contract(network: Network): Record<string, unknown> | null;

  // ── Evidence ───────────────────────────────────────────────────────────────────
  /** How far this rail's ingest has verified each of its chains (chain id → block or slot), and which it is re-reading. */
  indexedHeads(ctx: RailContext): Promise<IndexedHeads>;
  /**
   * Per chain, a time such that every credit stamped at or before it has been ingested
   * (the indexed block's time; now, when ingest last stood at the chain's head). Expiry
   * waits for it to pass the deadline. A chain left out has no such bound: its expiry
   * is held only while the worker's watch sees its ingest stalled.
   */
  evidenceHorizons(ctx: RailContext): Promise<Map<string, Date>>;
  /**
   * The chain's evidence for these payments (all on this rail) in the one credit shape
   * `settle` takes. `heads` are the indexed heads the caller read once for this run.
   */
  loadCredits(ctx: RailContext, payments: readonly PaymentRow[], heads: ReadonlyMap<string, bigint>): Promise<LoadedCredits>;
  /**
   * Money the customers of these payments (all on this rail) paid that has not reached the
   * payment's chain yet (a bridge fill under way), by payment: when it was paid. `settle`
   * keeps such a payment pending past its expiry while the money travels. Rails where
   * money arrives on the payment's chain directly have none.
   */
  inTransit(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, Date>>;
  /**
   * Payments with evidence the rail ingested on `network` since `cursor` (null: since the
   * beginning), up to `head`; and the cursor to store for next time. Rows rewritten by a
   * reorg below the cursor count as new.
   */
  newEvidence(ctx: RailContext, network: Network, cursor: EvidenceCursor | null, head: bigint): Promise<NewEvidence>;
  /**
   * Removes ingested rows that are no payment's evidence (never one that is: payments'
   * rows are their audit trail). A rail whose ingest stores only watched evidence has
   * nothing to prune and leaves this out.
   */
  pruneIngested?(ctx: RailContext, options: { dryRun: boolean }): Promise<PruneResult>;
  /**
   * Forgets how far ingest got on these chains (heads, cursors): the sandbox's local chains
   * start over at block (slot) 0 under the same ids on every start, and a head noted on the
   * previous chain would stand ahead of the new one until it caught up. Rails whose notes go
   * with their indexer's schema (dropped at the sandbox's start) leave this out.
   */
  forgetChains?(db: Db, chainIds: readonly string[]): Promise<void>;
  /**
   * True when ingest can add evidence while the indexed head stands still (Solana: credits
   * land at `confirmed`, the head moves with `finalized`): dispatch then looks on every wake-up.
   */
  readonly evidenceAheadOfHead: boolean;
  /**
   * Looks for this payment's evidence on chain now, beyond what ingest has reached, and
   * records what it finds as ingested evidence (Solana Pay: the transfer carrying its
   * reference). `verify-qr` calls it before reconciling; a no-op where ingest is enough.
   */
  refreshEvidence(ctx: RailContext, payment: PaymentRow, network: Network): Promise<void>;
  /**
   * Reads blocks (slots) `from`..`to` of `network` again straight from the chain and records
   * the evidence of every payment there that ingest does not hold yet; what it holds stays
   * as it is, so replaying twice changes nothing. Only final blocks are replayed (above
   * them a reorg may still change things: that is ingest's to follow); `to` is clamped to
   * the final block. `dryRun` finds without recording. The caller reconciles `paymentIds`.
   */
  replay(ctx: RailContext, network: Network, range: { from: bigint; to: bigint }, options: ReplayOptions): Promise<ReplayResult>;
  /** How the rail's chain is counted and who follows it, in words (`cli replay`'s output): "blocks", "the indexer". */
  ingestTerms: { unit: string; follower: string };
  /** The role (`scripts/role.ts`) whose process follows this rail's chains and reports their lag on its `/metrics`. */
  ingestRole: "indexer" | "solana" | "worker";
  /** Makes the rail's ingest announce each commit on `channel` (Postgres NOTIFY); false until its tables exist. */
  announceIngest(client: pg.Client, ctx: RailContext, channel: string): Promise<boolean>;
  /**
   * Reads a transaction a client submitted for `payment` from the chain and returns what
   * in it pays the payment (nothing: it does not). Throws ValidationError for a
   * transaction that is unknown or failed, ServiceUnavailableError when the chain cannot be read.
   */
  verifySubmission(ctx: RailContext, payment: PaymentRow, network: Network, transaction: string): Promise<SubmittedCredit[]>;

  /**
   * Who sent `transaction` (the EVM sender, Solana's fee payer): what `verify-qr` reports as
   * the payer to the client SDK. Null when the chain does not know it; a rail whose payments
   * arrive by no transaction of the customer's on the payment's chain (a bridge) leaves it out.
   */
  transactionSender?(network: Network, transaction: string, timeoutMs: number): Promise<string | null>;

  // ── The chain itself ───────────────────────────────────────────────────────────
  /** The chain's current head (block or slot) from its RPC. */
  chainHead(network: Network, timeoutMs: number): Promise<bigint>;
  /**
   * The time of block `head` (as `chainHead` answered it), to tell a node stuck at an old
   * block from one at the chain's head. Rails whose evidence horizon is a block's own time
   * already (Solana) leave it out.
   */
  headTime?(network: Network, head: bigint, timeoutMs: number): Promise<Date>;
  /** The newest block (or slot) the chain can no longer reorganize (`finalized` tag / commitment, or a configured depth). */
  finalizedHead(network: Network, timeoutMs: number): Promise<bigint>;
  /**
   * The newest block (or slot) whose recorded evidence can no longer change: final on the
   * chain and, where ingest checks its credits again at finality, checked (Solana: the
   * subscriber's finalized watermark, which trails the node's finalized slot). Sweeps and
   * refunds move only money credited at or below it.
   */
  finalEvidenceHead(ctx: RailContext, network: Network, timeoutMs: number): Promise<bigint>;
  /** What the payment's receive address holds of its token, read from the chain (not our records). */
  balanceOf(network: Network, payment: PaymentRow, timeoutMs: number): Promise<bigint>;
  /**
   * Native coin the payment's deposit address holds at the chain's final block (ETH sent
   * there instead of the token): never a credit; forwarded to the merchant once the payment
   * ended (a `native_sweep`). Rails whose deposit addresses cannot move it leave it out.
   */
  nativeBalance?(network: Network, payment: PaymentRow, timeoutMs: number): Promise<bigint>;
  /**
   * Why tokens of `payment` refunded to `address` (a valid address of this rail) would reach
   * no one who can spend them, read from the chain; null when they would.
   */
  refundAddressProblem(network: Network, payment: PaymentRow, address: string, timeoutMs: number): Promise<string | null>;
  /** Why sweeps to `address` as a merchant's settlement wallet would reach no one who can spend them, read from the chain; null when they would. */
  settlementWalletProblem(network: Network, address: string, timeoutMs: number): Promise<string | null>;
  /** The operator account that pays for sweeps and refunds here, and whether it can pay one now; null if none. */
  operatorStatus(config: Config, network: Network, timeoutMs: number): Promise<OperatorStatus | null>;

  // ── Moving money out ───────────────────────────────────────────────────────────
  /** Drives one recorded sweep or refund to a final state, exactly once on chain; safe to call again at any point. */
  executeTransferOut(ctx: TransferContext, rowId: string): Promise<TransferOutRow>;
  /**
   * Looks at a confirmed sweep or refund again while its block is not final: one a reorg
   * removed goes back to `broadcast` (the caller re-drives it, and the very same
   * transaction goes out again). Returns the row as it now stands.
   */
  recheckTransferOut(ctx: TransferContext, rowId: string): Promise<TransferOutRow>;
  /** Ends a stuck sweep or refund without moving anything (the operator's way out). */
  cancelTransferOut(ctx: TransferContext, rowId: string, options?: { waitMs?: number }): Promise<CancelledTransferOut>;
  /**
   * `cli recover`: sweeps what this rail's deposit addresses on `network` still hold, from what
   * survives the loss of the database — the worker's secrets and the chain (Solana: the deposit
   * seed, its indexes read up to a gap), or deposits the operator names from the merchant's
   * records (EVM: payment id and merchant wallet) — and from the database when it is there.
   * Rails whose addresses hold nothing leave it out.
   */
  recoverDeposits?(ctx: RecoveryContext, network: Network, options: RecoveryOptions): Promise<RecoveredDeposit[]>;
}

/** What `cli recover` runs with: the database only when it is there. */
export type RecoveryContext = { config: Config; db: Db | null; logger: Logger };

export type RecoveryOptions = {
  /** Where what is found goes when the deposit's own merchant cannot be told (Solana without the database); null: to that merchant. */
  destination: string | null;
  /** Deposits the operator names (EVM): a forwarder is known by its payment id and merchant wallet. */
  deposits: ReadonlyArray<{ paymentId: string; merchantWallet: string; depositAddress?: string }>;
  /** Solana: the first seed index read, and how many unused indexes in a row end the reading. */
  fromIndex: number;
  gap: number;
  /** Finds and reports; sends nothing. */
  dryRun: boolean;
};

/** One balance found at a deposit address, and what became of it. */
export type RecoveredDeposit = {
  address: string;
  token: string;
  amount: bigint;
  /** Where it went (or would go); null: nowhere known (the note says what to give). */
  to: string | null;
  txHash: string | null;
  note?: string;
};

export type RailName = "evm" | "solana" | "bridge";

/**
 * What `prepare` may use: the configuration, the database pool, and a way to ask the worker
 * to `replenish` at once (what `prepare` draws on ran out).
 */
export type PrepareContext = { config: Config; db: Db; prompts?: Pick<Prompts, "replenish"> };

/** What a rail needs from the process running it. `databaseUrl` is for session locks on their own connection. */
export type RailContext = { config: Config; db: Db; logger: Logger; databaseUrl?: string };

/**
 * Per chain, the block (slot) up to which ingest holds every piece of evidence. `rereading`:
 * chains whose ingest restarted and is reading again blocks it had read — evidence above
 * the head is absent for now, not gone, so answers computed from it stand until it is done.
 */
export type IndexedHeads = Map<string, bigint> & { rereading?: ReadonlySet<string> };

/**
 * Credits by payment. `unreadable`: payments whose evidence could not be read now (a chain's
 * node failing on a read the rail makes per payment): their stored answer stands, and the
 * other payments of the batch are reconciled all the same. `evidenceThrough`: per payment,
 * a time through which evidence the rail reads from outside the payment's chain is complete
 * (a bridge: deposits it has reported); expiry waits for it as for the chain's horizon.
 */
export type LoadedCredits = Map<string, SourcedCredit[]> & {
  unreadable?: ReadonlySet<string>;
  evidenceThrough?: ReadonlyMap<string, Date>;
  /** Payments whose money on its way to their chain was given back or lost (a bridge refunded or failed), with why: `settle`'s `transitFailed`. */
  gaveUp?: ReadonlyMap<string, string>;
};

export type PaymentKind = PaymentRow["kind"];

/** Where a credit came from; `transfer` means funds sit at an address the service sweeps. */
export type CreditSource = NonNullable<PaymentRow["completedVia"]>;

/**
 * A credit with the transaction that carries it, where it was found, and who paid it: the
 * address a refund goes back to by default (EVM: the transfer's `from` or the settlement
 * event's payer; Solana: the owner of the token account the money left; a bridge: the
 * sender of the origin-chain deposit), in the rail's canonical form. Null when it is not
 * known (a submission or simulation ingest has not read, several sources in one transaction).
 */
export type SourcedCredit = Credit & { txHash: string; source: CreditSource; payer: string | null };

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

/** The columns of a new payment row that the rail decides. */
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

/** How far dispatch has looked at a chain's ingested evidence. */
export type EvidenceCursor = { block: bigint; windowDigest: string | null };

export type NewEvidence = { paymentIds: string[]; cursor: EvidenceCursor };

/** One credit found in a submitted transaction; it counts until ingest passes its block. */
export type SubmittedCredit = { txHash: string; logIndex: number; blockNumber: bigint; blockTimestamp: Date; amount: bigint };

export type ReplayOptions = {
  dryRun: boolean;
  /** Called as the replay advances: how many of the range's blocks (slots) are done. */
  onProgress?: (done: bigint, total: bigint) => void;
};

/** What a replay found: evidence rows on chain in the range, how many were new to the service, and the payments they belong to. */
export type ReplayResult = {
  from: bigint;
  to: bigint;
  found: number;
  added: number;
  known: number;
  paymentIds: string[];
  /** Transactions in the range the node listed but did not serve, or served without a block time it could tell (Solana: a node without that history); the range is not fully read. */
  unread?: string[];
  /** The chain's final block (slot) when the replay read it: `to` is clamped to it. */
  finalHead: bigint;
  /**
   * When part of the range is not final yet: the chain's recent mean seconds per block (slot),
   * so the caller can tell how long until it is; null when the chain cannot tell it yet.
   */
  secondsPerBlock?: number | null;
};

/** What a prune removed (or, dry, would remove) and what stays. */
export type PruneResult = { removed: number; kept: number };

export type OperatorStatus = { address: string; balance: bigint; sufficient: boolean };

export type CancelledTransferOut = {
  /** The row afterwards: `failed` (cancelled), `confirmed` (the original landed first), or still in flight. */
  row: TransferOutRow;
  /** The cancelling transaction, if one was sent. */
  cancelTxHash: string | null;
};
