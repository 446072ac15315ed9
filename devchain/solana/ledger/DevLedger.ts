import { unpackMint } from "@solana/spl-token";
import { address, getTransactionDecoder, lamports as toLamports } from "@solana/kit";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { Clock, EpochSchedule, FailedTransactionMetadata, LiteSVM } from "litesvm";
import { RpcError } from "../rpc/RpcError.ts";
import { AccountHistory } from "./accountHistory.ts";
import { type AccountState, readAccount, sameAccountState } from "./accountState.ts";
import type { Commitment } from "./commitment.ts";
import { computeFee } from "./computeFee.ts";
import { type DecodedTransaction, decodeTransaction } from "./decodeTransaction.ts";
import { usesValidDurableNonce } from "./durableNonce.ts";
import { extractMemo } from "./extractMemo.ts";
import { programIds, isTokenProgram } from "./programIds.ts";
import { readExecutionMeta, type ExecutionMeta } from "./readExecutionMeta.ts";
import { readTokenBalances } from "./readTokenBalances.ts";
import { type Block, SlotClock } from "./slotClock.ts";
import { toAccountInfo } from "./toAccountInfo.ts";
import { describeTransactionError, transactionError } from "./transactionError.ts";
import { TransactionLog } from "./transactionLog.ts";
import type { TransactionErrorInfo, TransactionRecord } from "./transactionRecord.ts";
import { TransactionRejectedError } from "./transactionRejectedError.ts";
import { PreflightFailedError } from "./preflightFailedError.ts";
import type { Simulation } from "./simulation.ts";
import { verifySignatures } from "./verifySignatures.ts";

export interface DevLedgerOptions {
  finalityDepth: number;
  blockhashValiditySlots: number;
  /** Lamports the faucet (airdrops, helper fee payer) starts with. */
  faucetLamports: bigint;
  /** The genesis hash the chain reports (slot 0's blockhash); litesvm's first blockhash when omitted. */
  genesisHash?: string;
}

/** A produced slot and how far confirmation and finality moved with it. */
export interface SlotEvent {
  block: Block;
  confirmedSlot: number;
  finalizedSlot: number;
  previousConfirmedSlot: number;
  previousFinalizedSlot: number;
}

const slotsPerEpoch = 432_000n;
const maxSlotHashes = 512;
const emptyMeta: ExecutionMeta = { logMessages: [], innerInstructions: [], computeUnitsConsumed: 0n, returnData: null };

/**
 * The chain: litesvm's accounts and programs, plus what a real node keeps around them
 * (slots, blockhashes, commitment, transaction history, older account states).
 */
export class DevLedger {
  readonly svm: LiteSVM;
  readonly clock: SlotClock;
  readonly transactions = new TransactionLog();
  /** Pays airdrops and the helpers' transactions. */
  readonly faucet = Keypair.generate();
  private readonly history = new AccountHistory();
  private readonly decimalsByMint = new Map<string, number>();
  private readonly slotHashes: { slot: bigint; hash: string }[] = [];
  private readonly transactionListeners = new Set<(record: TransactionRecord) => void>();
  private readonly slotListeners = new Set<(event: SlotEvent) => void>();
  private readonly receivedListeners = new Set<(signature: string) => void>();
  private readonly kitDecoder = getTransactionDecoder();

  constructor(options: DevLedgerOptions) {
    // Blockhash age and signatures are checked here (a real node's rules), not by litesvm,
    // which only accepts its single latest blockhash; its own history is not needed either.
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(false).withTransactionHistory(0n);
    this.svm.setEpochSchedule(new EpochSchedule(slotsPerEpoch, slotsPerEpoch, false, 0n, 0n));
    this.svm.setAccount({
      address: address(this.faucet.publicKey.toBase58()),
      lamports: toLamports(options.faucetLamports),
      programAddress: address(programIds.system),
      executable: false,
      data: new Uint8Array(),
      space: 0n,
    });
    this.clock = new SlotClock(
      { finalityDepth: Math.max(1, options.finalityDepth), blockhashValiditySlots: options.blockhashValiditySlots },
      options.genesisHash ?? this.svm.latestBlockhash(),
    );
    this.syncSysvars(this.clock.block(0)!);
    this.produceSlot();
  }

  onTransaction(listener: (record: TransactionRecord) => void): () => void {
    this.transactionListeners.add(listener);
    return () => this.transactionListeners.delete(listener);
  }

  onSlot(listener: (event: SlotEvent) => void): () => void {
    this.slotListeners.add(listener);
    return () => this.slotListeners.delete(listener);
  }

  onReceived(listener: (signature: string) => void): () => void {
    this.receivedListeners.add(listener);
    return () => this.receivedListeners.delete(listener);
  }

  /** Closes the current slot and opens the next one with a fresh blockhash. */
  produceSlot(): Block {
    const previousConfirmedSlot = this.clock.slotAt("confirmed");
    const previousFinalizedSlot = this.clock.slotAt("finalized");
    const parent = this.clock.block(this.clock.tip)!;
    this.svm.expireBlockhash();
    const block = this.clock.open(this.svm.latestBlockhash());
    this.slotHashes.unshift({ slot: BigInt(parent.slot), hash: parent.blockhash });
    if (this.slotHashes.length > maxSlotHashes) this.slotHashes.pop();
    this.syncSysvars(block);
    const finalizedSlot = this.clock.slotAt("finalized");
    this.history.prune(finalizedSlot);
    const event = { block, confirmedSlot: this.clock.slotAt("confirmed"), finalizedSlot, previousConfirmedSlot, previousFinalizedSlot };
    notify(this.slotListeners, event);
    return block;
  }

  /** An account's state at the end of `slot` (or now, for the processed slot). */
  accountAtSlot(account: string, slot: number): AccountState | null {
    return this.history.stateAt(account, slot, readAccount(this.svm, account));
  }

  account(account: string, commitment: Commitment): AccountState | null {
    return this.accountAtSlot(account, this.clock.slotAt(commitment));
  }

  /** Addresses of the accounts a program owned at `slot`. */
  programAccountsAtSlot(programId: string, slot: number): string[] {
    const candidates = new Set(this.svm.getProgramAccounts(address(programId)).map((account) => account.address as string));
    for (const written of this.history.writtenAfter(slot)) candidates.add(written);
    return [...candidates].filter((candidate) => this.accountAtSlot(candidate, slot)?.owner === programId);
  }

  decimalsOf(mint: string): number | undefined {
    const known = this.decimalsByMint.get(mint);
    if (known !== undefined) return known;
    const state = readAccount(this.svm, mint);
    if (!state || !isTokenProgram(state.owner)) return undefined;
    try {
      const decimals = unpackMint(new PublicKey(mint), toAccountInfo(state), new PublicKey(state.owner)).decimals;
      this.decimalsByMint.set(mint, decimals); // a mint's decimals never change
      return decimals;
    } catch {
      return undefined;
    }
  }

  decode(wire: Uint8Array): DecodedTransaction {
    return decodeTransaction(wire, (key) => readAccount(this.svm, key));
  }

  /**
   * sendTransaction: with preflight, a transaction that would fail is refused
   * (PreflightFailedError) and nothing happens; without it, a failing transaction still
   * lands (fee charged, recorded with its error) and one the chain would not include is dropped.
   */
  submit(wire: Uint8Array, options: { skipPreflight?: boolean } = {}): string {
    const decoded = this.decode(wire);
    notify(this.receivedListeners, decoded.signature);
    if (!options.skipPreflight) {
      if (!verifySignatures(decoded)) throw new RpcError(-32003, "Transaction signature verification failure");
      const simulation = this.simulateDecoded(decoded, { replaceRecentBlockhash: false });
      if (simulation.err) throw new PreflightFailedError(simulation);
    } else if (!verifySignatures(decoded)) {
      return decoded.signature; // a leader drops it; the client only ever sees the signature
    }
    try {
      this.execute(decoded);
    } catch (error) {
      if (!(error instanceof TransactionRejectedError)) throw error;
    }
    return decoded.signature;
  }

  simulate(wire: Uint8Array, options: { sigVerify?: boolean; replaceRecentBlockhash?: boolean } = {}): Simulation {
    const decoded = this.decode(wire);
    if (options.sigVerify && !verifySignatures(decoded)) throw new RpcError(-32003, "Transaction signature verification failure");
    return this.simulateDecoded(decoded, { replaceRecentBlockhash: options.replaceRecentBlockhash ?? false });
  }

  /** Sends lamports from the faucet, as the faucet behind requestAirdrop does. */
  airdrop(recipient: string, lamports: bigint): string {
    const transaction = new Transaction({
      feePayer: this.faucet.publicKey,
      recentBlockhash: this.clock.block(this.clock.tip)!.blockhash,
    }).add(SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(recipient), lamports }));
    transaction.sign(this.faucet);
    return this.submit(transaction.serialize());
  }

  private simulateDecoded(decoded: DecodedTransaction, options: { replaceRecentBlockhash: boolean }): Simulation {
    const fee = computeFee(decoded.message);
    const rejection = options.replaceRecentBlockhash ? null : this.checkAge(decoded);
    if (rejection) return { decoded, err: rejection, meta: emptyMeta, fee, postAccounts: new Map() };
    const result = this.svm.simulateTransaction(this.kitDecoder.decode(decoded.wire));
    if (result instanceof FailedTransactionMetadata) {
      return { decoded, err: describeTransactionError(result), meta: readExecutionMeta(result.meta()), fee, postAccounts: new Map() };
    }
    const postAccounts = new Map<string, AccountState | null>();
    for (const account of result.postAccounts()) {
      postAccounts.set(account.address, account.lamports === 0n ? null : {
        lamports: account.lamports,
        owner: account.programAddress,
        data: account.data as Uint8Array,
        executable: account.executable,
      });
    }
    return { decoded, err: null, meta: readExecutionMeta(result.meta()), fee, postAccounts };
  }

  /** The bank's age and status-cache checks. */
  private checkAge(decoded: DecodedTransaction): TransactionErrorInfo | null {
    if (this.transactions.get(decoded.signature)) return transactionError("AlreadyProcessed");
    if (this.clock.isBlockhashValid(decoded.message.recentBlockhash)) return null;
    if (usesValidDurableNonce(decoded, (key) => readAccount(this.svm, key))) return null;
    return transactionError("BlockhashNotFound");
  }

  private execute(decoded: DecodedTransaction): TransactionRecord {
    const rejection = this.checkAge(decoded);
    if (rejection) throw new TransactionRejectedError(rejection);
    const keys = decoded.accountKeys;
    const before = keys.map((key) => readAccount(this.svm, key));
    const result = this.svm.sendTransaction(this.kitDecoder.decode(decoded.wire));
    const after = keys.map((key) => readAccount(this.svm, key));
    const changedAccounts = keys.filter((_, index) => !sameAccountState(before[index]!, after[index]!));
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? describeTransactionError(result) : null;
    const meta = readExecutionMeta(failed ? result.meta() : result);
    // A failure that changed nothing (not even the fee) never made it into a block.
    if (err && changedAccounts.length === 0) throw new TransactionRejectedError(err, meta.logMessages);

    const block = this.clock.block(this.clock.tip)!;
    const decimalsOf = (mint: string) => this.decimalsOf(mint);
    const record: TransactionRecord = {
      seq: this.transactions.nextSeq(),
      signature: decoded.signature,
      signatures: decoded.signatures,
      slot: block.slot,
      blockTime: block.blockTime,
      wire: decoded.wire,
      message: decoded.message,
      version: decoded.version,
      accountKeys: keys,
      loadedAddresses: decoded.loadedAddresses,
      err,
      fee: computeFee(decoded.message),
      preBalances: before.map((state) => state?.lamports ?? 0n),
      postBalances: after.map((state) => state?.lamports ?? 0n),
      preTokenBalances: readTokenBalances(keys, before, decimalsOf),
      postTokenBalances: readTokenBalances(keys, after, decimalsOf),
      ...meta,
      changedAccounts,
      memo: extractMemo(decoded.message, keys),
    };
    keys.forEach((key, index) => {
      if (changedAccounts.includes(key)) this.history.recordWrite(key, block.slot, before[index]!);
    });
    this.transactions.add(record);
    block.signatures.push(record.signature);
    notify(this.transactionListeners, record);
    return record;
  }

  private syncSysvars(block: Block): void {
    const slot = BigInt(block.slot);
    const epoch = slot / slotsPerEpoch;
    const epochStart = this.clock.block(Number(epoch * slotsPerEpoch))?.blockTime ?? block.blockTime;
    this.svm.setClock(new Clock(slot, BigInt(epochStart), epoch, epoch + 1n, BigInt(block.blockTime)));
    this.svm.setSlotHashes(this.slotHashes);
  }
}

/** Listeners (PubSub) must not turn a landed transaction or a produced slot into an error. */
function notify<T>(listeners: Set<(value: T) => void>, value: T): void {
  for (const listener of listeners) {
    try {
      listener(value);
    } catch (error) {
      console.error("devchain listener failed:", error);
    }
  }
}
