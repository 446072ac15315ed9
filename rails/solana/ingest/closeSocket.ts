import type { Connection } from "@solana/web3.js";

type RpcWebSocket = {
  setAutoReconnect(on: boolean): void;
  close(code?: number): void;
  reconnect_timer_id?: ReturnType<typeof setTimeout>;
  underlyingSocket?: { readyState: number };
};

/** web3.js's websocket client, through its private field (absent in another version: undefined). */
const socketOf = (connection: Connection) => (connection as unknown as { _rpcWebSocket?: RpcWebSocket })._rpcWebSocket;

/**
 * Closes a web3.js Connection's websocket for good, without unsubscribing first. web3.js has
 * no public close, and two of its behaviours make the obvious ways unsafe:
 * - an unsubscribe that fails because the socket is closing is retried at once, in a loop of
 *   promises that never yields to the event loop, so the close never completes: the process
 *   spins and logs "slotUnsubscribe error" until it runs out of memory;
 * - closing with 1000 ("normal") makes web3.js open the socket again for subscriptions it
 *   still holds, and a socket that never connected (a dead `WS_URL` item) is retried by
 *   rpc-websockets every second, forever.
 * So: reconnects off, and closed with an application code (4000), which web3.js treats as a
 * dropped socket (its subscriptions wait, unsent, on a Connection nobody uses again). The
 * server ends a socket's subscriptions when it closes.
 */
export function closeSocket(connection: Connection): void {
  const socket = socketOf(connection);
  if (!socket) return;
  socket.setAutoReconnect(false);
  if (socket.reconnect_timer_id) clearTimeout(socket.reconnect_timer_id);
  socket.close(4000);
}

/**
 * Whether the Connection's websocket is closing or closed (its close perhaps not yet seen by
 * web3.js), where an unsubscribe would fail and be retried in the loop `closeSocket` describes.
 * Connecting or open, web3.js unsubscribes safely (a subscription not sent yet is just dropped).
 */
export function socketClosing(connection: Connection): boolean {
  const state = socketOf(connection)?.underlyingSocket?.readyState;
  return state === 2 || state === 3;
}
