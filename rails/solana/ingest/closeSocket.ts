import type { Connection } from "@solana/web3.js";

type RpcWebSocket = { setAutoReconnect(on: boolean): void; close(code?: number): void; reconnect_timer_id?: ReturnType<typeof setTimeout> };

/**
 * Closes a web3.js Connection's websocket for good. web3.js has no public close: once its
 * subscriptions are removed it closes a socket that is open, but one that never connected (a
 * dead `WS_URL` item) is retried by rpc-websockets every second, forever — and the watchdog
 * replaces sockets, so each replacement onto a dead endpoint would leave one more retrying.
 * Reaches the client through web3.js's private field; absent (another version), nothing happens.
 */
export function closeSocket(connection: Connection): void {
  const socket = (connection as unknown as { _rpcWebSocket?: RpcWebSocket })._rpcWebSocket;
  if (!socket) return;
  socket.setAutoReconnect(false);
  if (socket.reconnect_timer_id) clearTimeout(socket.reconnect_timer_id);
  socket.close(1000);
}
