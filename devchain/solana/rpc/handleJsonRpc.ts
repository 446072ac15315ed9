import type { DevLedger } from "../ledger/DevLedger.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";

interface JsonRpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Answers one JSON-RPC 2.0 request body (single or batch) the way a real node's HTTP endpoint does. */
export function handleJsonRpc(body: string, methods: RpcMethods, ledger: DevLedger): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return errorResponse(null, RpcError.parseError());
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return errorResponse(null, RpcError.invalidRequest());
    return parsed.map((request) => handleOne(request, methods, ledger));
  }
  return handleOne(parsed, methods, ledger);
}

export function handleOne(request: unknown, methods: RpcMethods, ledger: DevLedger): unknown {
  const { jsonrpc, id = null, method, params = [] } = (request ?? {}) as JsonRpcRequest;
  if (jsonrpc !== "2.0" || typeof method !== "string") return errorResponse(id, RpcError.invalidRequest());
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (!handler) return errorResponse(id, RpcError.methodNotFound());
  if (!Array.isArray(params)) return errorResponse(id, RpcError.invalidParams("Invalid params: expected an array"));
  try {
    return { jsonrpc: "2.0", result: handler(params, ledger), id };
  } catch (error) {
    if (error instanceof RpcError) return errorResponse(id, error);
    return errorResponse(id, new RpcError(-32603, "Internal error", { message: (error as Error).message }));
  }
}

function errorResponse(id: unknown, error: RpcError) {
  return { jsonrpc: "2.0", error: error.toJson(), id };
}
