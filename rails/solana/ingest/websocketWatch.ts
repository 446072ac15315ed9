import { Connection, PublicKey } from "@solana/web3.js";
import type { Logger } from "../../../config/logger.ts";
import { closeSocket, socketClosing } from "./closeSocket.ts";

/**
 * The subscriber's websocket: one `logsSubscribe` (mentions, `confirmed`) per watched
 * address, whose notifications only say "look at this address now", and a slot
 * subscription that proves the socket is alive. A socket with no slot notification for
 * `staleMs` is replaced by a new one with every subscription (the watchdog), and
 * `onReconnect` lets the caller scan everything, since notifications in the gap are lost.
 * With several endpoints (`WS_URL_…` lists), each replacement moves to the next one: a
 * provider whose socket went silent is not the one asked again first.
 */
export function startWebsocketWatch(options: {
  /** Where sockets are opened, in turn: a websocket URL, or null for web3.js's default beside `rpcUrl` (its port + 1). */
  endpoints: ReadonlyArray<{ rpcUrl: string; wsUrl: string | null }>;
  staleMs: number;
  logger: Logger;
  onActivity: (address: string) => void;
  onReconnect: () => void;
}) {
  let endpoint = 0;
  let connection = newConnection();
  let subscriptions = new Map<string, number>();
  let lastSeen = Date.now();
  let replacements = 0;
  let stopped = false;

  function newConnection() {
    const { rpcUrl, wsUrl } = options.endpoints[endpoint % options.endpoints.length]!;
    return new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: wsUrl ?? undefined });
  }

  function subscribe(address: string) {
    const id = connection.onLogs(new PublicKey(address), () => {
      lastSeen = Date.now();
      // An address dropped since (its unsubscribe may still wait: see `unsubscribe`) is not looked at.
      if (subscriptions.get(address) === id) options.onActivity(address);
    }, "confirmed");
    subscriptions.set(address, id);
  }

  function watchSlots() {
    connection.onSlotChange(() => (lastSeen = Date.now()));
  }
  watchSlots();

  /**
   * Stops listening to one address. web3.js may not unsubscribe on a closing socket (see
   * `closeSocket`): there the removal waits a second, by which time the socket is closed and
   * web3.js drops the subscription unsent. Its notifications meanwhile are ignored (`subscribe`).
   */
  function unsubscribe(on: Connection, id: number) {
    if (stopped || on !== connection) return; // a replaced socket: closed, its subscriptions with it
    if (!socketClosing(on)) void on.removeOnLogsListener(id).catch(() => {});
    else setTimeout(() => unsubscribe(on, id), 1_000).unref?.();
  }

  /** Replaces the socket and every subscription (the watchdog, or a test). */
  async function replace(reason: string) {
    if (stopped) return;
    replacements++;
    options.logger.warn({ reason }, "solana websocket replaced");
    const old = connection;
    const addresses = [...subscriptions.keys()];
    endpoint = (endpoint + 1) % options.endpoints.length;
    connection = newConnection();
    subscriptions = new Map();
    lastSeen = Date.now();
    watchSlots();
    for (const address of addresses) subscribe(address);
    closeSocket(old); // its subscriptions end with it, unsubscribing nothing (see closeSocket)
    options.onReconnect();
  }

  const watchdog = setInterval(() => {
    if (Date.now() - lastSeen > options.staleMs) void replace(`no slot notification for ${options.staleMs} ms`);
  }, Math.max(50, Math.floor(options.staleMs / 4)));

  return {
    /** Keeps exactly these addresses subscribed. */
    sync(addresses: Iterable<string>) {
      if (stopped) return;
      const wanted = new Set(addresses);
      for (const [address, id] of subscriptions) {
        if (wanted.has(address)) continue;
        subscriptions.delete(address);
        unsubscribe(connection, id);
      }
      for (const address of wanted) if (!subscriptions.has(address)) subscribe(address);
    },
    replace,
    replacements: () => replacements,
    /** The endpoint the socket is open on now (its index in `endpoints`). */
    endpoint: () => endpoint,
    size: () => subscriptions.size,
    async stop() {
      stopped = true;
      clearInterval(watchdog);
      closeSocket(connection);
      subscriptions.clear();
    },
  };
}

export type WebsocketWatch = ReturnType<typeof startWebsocketWatch>;
