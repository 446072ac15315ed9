import type { ProviderRotation } from "../rpcRotation/providerRotation.ts";
import type { Config, Network, NetworkType } from "../../config/index.ts";
import type { PaymentRow, TransferOutRow } from "../../db/schema/index.ts";
import type { TransferContext } from "../transferLedger.ts";
import type { RailContext } from "./context.ts";
import type { MerchantSignedRefunds } from "./merchantSignedRefunds.ts";
import type { RecoveredDeposit, RecoveryContext, RecoveryOptions } from "./recovery.ts";

/**
 * The chain port, one per network type: reading the chain (heads, finality, balances),
 * its addresses and signatures, and moving money out of the service (sweeps, refunds).
 * Registered with its network type in `rails/registry.ts`; callers reach it by `chainFor(network)`.
 */
export interface ChainPort {
  readonly type: NetworkType;

  // ── Reading the chain ──────────────────────────────────────────────────────────
  /** The chain's current head (block or slot) from its RPC. */
  chainHead(network: Network, timeoutMs: number): Promise<bigint>;
  /**
   * The time of block `head` (as `chainHead` answered it), to tell a node stuck at an old
   * block from one at the chain's head. Chains whose evidence horizon is a block's own time
   * already (Solana) leave it out.
   */
  headTime?(network: Network, head: bigint, timeoutMs: number): Promise<Date>;
  /** The newest block (or slot) the chain can no longer reorganize (`finalized` tag / commitment, or a configured depth). */
  finalizedHead(network: Network, timeoutMs: number): Promise<bigint>;
  /** The rotation over `urls`, several providers of `network`, made and probing from now on (its libraries loaded on use). */
  providerRotation(network: Network, urls: string[]): Promise<ProviderRotation>;
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
   * ended (a `native_sweep`). Chains whose deposit addresses cannot move it leave it out.
   */
  nativeBalance?(network: Network, payment: PaymentRow, timeoutMs: number): Promise<bigint>;
  /** The operator account that pays for sweeps and refunds here, and whether it can pay one now; null if none. */
  operatorStatus(config: Config, network: Network, timeoutMs: number): Promise<OperatorStatus | null>;
  /**
   * Why tokens of `payment` refunded to `address` (a valid address of this chain) would reach
   * no one who can spend them, read from the chain; null when they would.
   */
  refundAddressProblem(network: Network, payment: PaymentRow, address: string, timeoutMs: number): Promise<string | null>;
  /** Why sweeps to `address` as a merchant's settlement wallet would reach no one who can spend them, read from the chain; null when they would. */
  settlementWalletProblem(network: Network, address: string, timeoutMs: number): Promise<string | null>;

  // ── Addresses and signatures ───────────────────────────────────────────────────
  /** The canonical form of an address on this chain (checksummed, base58…), or null if it is not one. */
  normalizeAddress(address: string): string | null;
  /** An address of this chain, in words for an error ("EVM address (0x + 40 hex digits; …)"). */
  readonly addressDescription: string;
  /** The chain's null address: tokens sent there are burnt (`unreceivableAddresses`). */
  readonly nullAddress: string;
  /**
   * Whether `signature` is `signer`'s signature of `message` as a wallet of this chain signs a
   * text (EVM: EIP-191 `personal_sign`; Solana: ed25519 `signMessage`). A paying address signs
   * for a refund to another address so; a malformed signature is false, never an error.
   */
  verifySignedMessage(signer: string, message: string, signature: string): Promise<boolean>;
  /** The browser wallet interface the checkout page asks for such a signature through (`MessageSigners`). */
  readonly messageSigner: MessageSigner;

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
   * `cli recover`: sweeps what this chain's deposit addresses on `network` still hold, from what
   * survives the loss of the database — the worker's secrets and the chain (Solana: the deposit
   * seed, its indexes read up to a gap), or deposits the operator names from the merchant's
   * records (EVM: payment id and merchant wallet) — and from the database when it is there.
   * Chains whose addresses hold nothing leave it out.
   */
  recoverDeposits?(ctx: RecoveryContext, network: Network, options: RecoveryOptions): Promise<RecoveredDeposit[]>;
  /**
   * Refunds from the merchant's own wallet, signed by it and relayed by the operator (money the
   * service does not hold). `executeTransferOut` relays a row carrying `merchantSigned`.
   * Chains that cannot relay such a transfer leave it out.
   */
  readonly merchantSignedRefunds?: MerchantSignedRefunds;
}

/**
 * The browser wallet interfaces the checkout page knows to ask for a signed message, by name
 * (EVM's `eip1193`: the injected `window.ethereum`; Solana's: an injected wallet's
 * `signMessage`): each rail adds its own by augmenting this interface from its folder
 * (`declare module`), so no port names one.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each rail's module augmentation.
export interface MessageSigners {}

export type MessageSigner = keyof MessageSigners & string;

export type OperatorStatus = { address: string; balance: bigint; sufficient: boolean };

export type CancelledTransferOut = {
  /** The row afterwards: `failed` (cancelled), `confirmed` (the original landed first), or still in flight. */
  row: TransferOutRow;
  /** The cancelling transaction, if one was sent. */
  cancelTxHash: string | null;
};
