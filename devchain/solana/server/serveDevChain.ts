import type { Server, ServerWebSocket } from "bun";
import { freePort } from "../../freePort.ts";
import type { DevLedger } from "../ledger/DevLedger.ts";
import type { PubSub, PubSubSocket } from "../pubsub/PubSub.ts";
import { handleJsonRpc } from "../rpc/handleJsonRpc.ts";
import type { RpcMethods } from "../rpc/rpcMethod.ts";
import { toJsonText } from "../rpc/toJsonText.ts";

interface SocketData {
  socket?: PubSubSocket;
}

export interface DevChainServer {
  /** HTTP JSON-RPC and PubSub. */
  port: number;
  /** PubSub (and HTTP) again, where web3.js looks for it: the RPC port + 1. */
  wsPort: number;
  stop(): Promise<void>;
}

// Wallets and checkout pages call RPC providers from browsers.
const corsHeaders = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type, solana-client",
};

/**
 * Listens on 127.0.0.1 on two consecutive ports, each serving JSON-RPC over HTTP and
 * PubSub over WebSocket: an unmodified web3.js `Connection(rpcUrl)` derives its
 * WebSocket URL as port + 1, like a validator's 8899/8900.
 */
export async function serveDevChain(ledger: DevLedger, pubsub: PubSub, methods: RpcMethods, port?: number): Promise<DevChainServer> {
  const sockets = new Set<ServerWebSocket<SocketData>>();
  const options = {
    hostname: "127.0.0.1",
    fetch(request: Request, server: Server<SocketData>) {
      if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
        return server.upgrade(request, { data: {} }) ? undefined : new Response("WebSocket upgrade failed", { status: 400 });
      }
      return answerHttp(request, ledger, methods);
    },
    websocket: {
      open(ws: ServerWebSocket<SocketData>) {
        ws.data.socket = { send: (message: string) => ws.send(message) };
        sockets.add(ws);
      },
      message(ws: ServerWebSocket<SocketData>, message: string | Buffer) {
        const response = pubsub.handleMessage(ws.data.socket!, String(message));
        if (response) ws.send(response);
      },
      close(ws: ServerWebSocket<SocketData>) {
        sockets.delete(ws);
        if (ws.data.socket) pubsub.closeSocket(ws.data.socket);
      },
    },
  };
  for (let attempt = 0; ; attempt++) {
    const first = port ?? (await freePort());
    let http: Server<SocketData> | undefined;
    try {
      http = Bun.serve<SocketData>({ ...options, port: first });
      const ws = Bun.serve<SocketData>({ ...options, port: first + 1 });
      return {
        port: first,
        wsPort: first + 1,
        async stop() {
          // A normal closure (1000) tells web3.js's socket client not to reconnect.
          for (const socket of sockets) socket.close(1000, "devchain stopped");
          await Promise.all([http!.stop(), ws.stop()]);
        },
      };
    } catch (error) {
      await http?.stop(true);
      if (port !== undefined || attempt >= 20) throw error;
    }
  }
}

async function answerHttp(request: Request, ledger: DevLedger, methods: RpcMethods): Promise<Response> {
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: corsHeaders });
  if (request.method === "GET" && new URL(request.url).pathname === "/health") return new Response("ok", { headers: corsHeaders });
  if (request.method !== "POST") {
    return new Response("Used HTTP Method is not allowed. POST or OPTIONS is required", { status: 405, headers: corsHeaders });
  }
  const body = handleJsonRpc(await request.text(), methods, ledger);
  return new Response(toJsonText(body), { headers: { ...corsHeaders, "Content-Type": "application/json" } });
}
