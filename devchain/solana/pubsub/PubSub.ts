import type { AccountState } from "../ledger/accountState.ts";
import { type Commitment, parseCommitment } from "../ledger/commitment.ts";
import type { DevLedger, SlotEvent } from "../ledger/DevLedger.ts";
import { programIds } from "../ledger/programIds.ts";
import type { TransactionRecord } from "../ledger/transactionRecord.ts";
import { type AccountEncoding, encodeAccount, parseAccountEncoding } from "../encode/encodeAccount.ts";
import { matchesAccountFilter } from "../rpc/matchesAccountFilter.ts";
import { addressParam, configParam, stringParam } from "../rpc/params.ts";
import { RpcError } from "../rpc/RpcError.ts";
import { toJsonText } from "../rpc/toJsonText.ts";

/** The side of a websocket the PubSub writes notifications to. */
export interface PubSubSocket {
  send(message: string): unknown;
}

type Subscription = { id: number; socket: PubSubSocket } & (
  | { kind: "account"; account: string; commitment: Commitment; encoding: AccountEncoding }
  | { kind: "program"; programId: string; commitment: Commitment; encoding: AccountEncoding; filters: unknown[] }
  | { kind: "logs"; mentions: string | null; commitment: Commitment }
  | { kind: "signature"; signature: string; commitment: Commitment; enableReceivedNotification: boolean }
  | { kind: "slot" }
  | { kind: "root" }
);

type Kind = Subscription["kind"];

// A closed account is notified as the empty system account a real bank holds for it.
const emptyAccount: AccountState = { lamports: 0n, owner: programIds.system, data: new Uint8Array(), executable: false };

/**
 * The node's PubSub (WebSocket) service: account, program, logs, signature, slot and
 * root subscriptions, each notified when its commitment level reaches the change.
 */
export class PubSub {
  private readonly subscriptions = new Map<number, Subscription>();
  private nextId = 1;
  private readonly disposers: (() => void)[];

  constructor(private readonly ledger: DevLedger) {
    this.disposers = [
      ledger.onTransaction((record) => this.transactionReached("processed", record)),
      ledger.onSlot((event) => this.slotProduced(event)),
      ledger.onReceived((signature) => this.signatureReceived(signature)),
    ];
  }

  /** Live subscriptions (tests wait for a client's subscribe to arrive). */
  get size(): number {
    return this.subscriptions.size;
  }

  dispose(): void {
    for (const dispose of this.disposers) dispose();
    this.subscriptions.clear();
  }

  /** Answers one JSON-RPC message from a socket; returns the response text. */
  handleMessage(socket: PubSubSocket, text: string): string | null {
    let request: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(text);
    } catch {
      return JSON.stringify({ jsonrpc: "2.0", error: RpcError.parseError().toJson(), id: null });
    }
    const { id = null, method, params = [] } = request ?? {};
    if (id === null || typeof method !== "string") return null; // notifications (web3.js pings) get no answer
    try {
      const result = this.call(socket, method, Array.isArray(params) ? params : []);
      return toJsonText({ jsonrpc: "2.0", result, id });
    } catch (error) {
      const rpcError = error instanceof RpcError ? error : new RpcError(-32603, "Internal error");
      return JSON.stringify({ jsonrpc: "2.0", error: rpcError.toJson(), id });
    }
  }

  /** Drops every subscription of a closed socket. */
  closeSocket(socket: PubSubSocket): void {
    for (const [id, subscription] of this.subscriptions) if (subscription.socket === socket) this.subscriptions.delete(id);
  }

  private call(socket: PubSubSocket, method: string, params: unknown[]): unknown {
    if (method.endsWith("Unsubscribe")) {
      const kind = method.slice(0, -"Unsubscribe".length);
      const existing = this.subscriptions.get(Number(params[0]));
      if (!existing || existing.kind !== kind || existing.socket !== socket) throw RpcError.invalidParams("Invalid subscription id.");
      this.subscriptions.delete(existing.id);
      return true;
    }
    const config = configParam(params, 1);
    const commitment = () => parseCommitment(config.commitment);
    const base = { id: this.nextId, socket };
    let subscription: Subscription;
    switch (method) {
      case "accountSubscribe":
        subscription = { ...base, kind: "account", account: addressParam(params[0]), commitment: commitment(), encoding: parseAccountEncoding(config.encoding, "binary") };
        break;
      case "programSubscribe":
        subscription = {
          ...base,
          kind: "program",
          programId: addressParam(params[0]),
          commitment: commitment(),
          encoding: parseAccountEncoding(config.encoding, "binary"),
          filters: Array.isArray(config.filters) ? config.filters : [],
        };
        break;
      case "logsSubscribe":
        subscription = { ...base, kind: "logs", mentions: parseLogsFilter(params[0]), commitment: commitment() };
        break;
      case "signatureSubscribe":
        subscription = {
          ...base,
          kind: "signature",
          signature: stringParam(params, 0, "signature"),
          commitment: commitment(),
          enableReceivedNotification: config.enableReceivedNotification === true,
        };
        break;
      case "slotSubscribe":
        subscription = { ...base, kind: "slot" };
        break;
      case "rootSubscribe":
        subscription = { ...base, kind: "root" };
        break;
      default:
        throw RpcError.methodNotFound();
    }
    this.nextId++;
    this.subscriptions.set(subscription.id, subscription);
    return subscription.id;
  }

  private slotProduced(event: SlotEvent): void {
    const { block, confirmedSlot, finalizedSlot, previousConfirmedSlot, previousFinalizedSlot } = event;
    for (const subscription of this.ofKind("slot")) this.send(subscription, "slotNotification", { parent: block.parentSlot, root: finalizedSlot, slot: block.slot });
    this.slotsReached("confirmed", previousConfirmedSlot, confirmedSlot);
    this.slotsReached("finalized", previousFinalizedSlot, finalizedSlot);
    // Like a real node, each new slot also answers subscriptions to signatures that had
    // already reached their commitment when subscribed (clients poll getSignatureStatuses meanwhile).
    for (const subscription of this.ofKind("signature")) {
      const record = this.ledger.transactions.get(subscription.signature);
      if (record && record.slot <= this.ledger.clock.slotAt(subscription.commitment)) this.notifySignature(subscription, record);
    }
    for (let root = previousFinalizedSlot + 1; root <= finalizedSlot; root++) {
      for (const subscription of this.ofKind("root")) this.send(subscription, "rootNotification", root);
    }
  }

  private slotsReached(commitment: Commitment, previousSlot: number, slot: number): void {
    const changed = new Set<string>();
    for (let reached = previousSlot + 1; reached <= slot; reached++) {
      for (const signature of this.ledger.clock.block(reached)?.signatures ?? []) {
        const record = this.ledger.transactions.get(signature)!;
        this.notifyTransaction(commitment, record);
        for (const account of record.changedAccounts) changed.add(account);
      }
    }
    this.notifyAccounts(commitment, changed, slot);
  }

  private transactionReached(commitment: Commitment, record: TransactionRecord): void {
    this.notifyTransaction(commitment, record);
    this.notifyAccounts(commitment, new Set(record.changedAccounts), record.slot);
  }

  private notifyTransaction(commitment: Commitment, record: TransactionRecord): void {
    for (const subscription of this.ofKind("logs")) {
      if (subscription.commitment !== commitment) continue;
      if (subscription.mentions !== null && !record.accountKeys.includes(subscription.mentions)) continue;
      this.send(subscription, "logsNotification", {
        context: { slot: record.slot },
        value: { signature: record.signature, err: record.err?.json ?? null, logs: record.logMessages },
      });
    }
    for (const subscription of this.ofKind("signature")) {
      if (subscription.commitment === commitment && subscription.signature === record.signature) this.notifySignature(subscription, record);
    }
  }

  private notifySignature(subscription: Extract<Subscription, { kind: "signature" }>, record: TransactionRecord): void {
    // Signature subscriptions end with their notification, as on a real node.
    this.subscriptions.delete(subscription.id);
    this.send(subscription, "signatureNotification", { context: { slot: record.slot }, value: { err: record.err?.json ?? null } });
  }

  private signatureReceived(signature: string): void {
    for (const subscription of this.ofKind("signature")) {
      if (subscription.signature !== signature || !subscription.enableReceivedNotification) continue;
      this.send(subscription, "signatureNotification", { context: { slot: this.ledger.clock.tip }, value: "receivedSignature" });
    }
  }

  private notifyAccounts(commitment: Commitment, changed: Set<string>, slot: number): void {
    if (changed.size === 0) return;
    const decimalsOf = (mint: string) => this.ledger.decimalsOf(mint);
    for (const subscription of this.ofKind("account")) {
      if (subscription.commitment !== commitment || !changed.has(subscription.account)) continue;
      const state = this.ledger.accountAtSlot(subscription.account, slot) ?? emptyAccount;
      this.send(subscription, "accountNotification", {
        context: { slot },
        value: encodeAccount(subscription.account, state, { encoding: subscription.encoding, decimalsOf }),
      });
    }
    for (const subscription of this.ofKind("program")) {
      if (subscription.commitment !== commitment) continue;
      for (const account of changed) {
        const state = this.ledger.accountAtSlot(account, slot);
        if (!state || state.owner !== subscription.programId) continue;
        if (!subscription.filters.every((filter) => matchesAccountFilter(state, filter))) continue;
        this.send(subscription, "programNotification", {
          context: { slot },
          value: { pubkey: account, account: encodeAccount(account, state, { encoding: subscription.encoding, decimalsOf }) },
        });
      }
    }
  }

  private *ofKind<K extends Kind>(kind: K): Generator<Extract<Subscription, { kind: K }>> {
    for (const subscription of [...this.subscriptions.values()]) {
      if (subscription.kind === kind) yield subscription as Extract<Subscription, { kind: K }>;
    }
  }

  private send(subscription: Subscription, method: string, result: unknown): void {
    subscription.socket.send(toJsonText({ jsonrpc: "2.0", method, params: { result, subscription: subscription.id } }));
  }
}

/** logsSubscribe's filter: "all", "allWithVotes" (no votes here) or `{mentions: [one address]}`. */
function parseLogsFilter(filter: unknown): string | null {
  if (filter === "all" || filter === "allWithVotes") return null;
  const mentions = (filter as { mentions?: unknown } | null)?.mentions;
  if (!Array.isArray(mentions) || mentions.length !== 1) throw RpcError.invalidParams("Invalid Request: Only 1 address supported");
  return addressParam(mentions[0]);
}
