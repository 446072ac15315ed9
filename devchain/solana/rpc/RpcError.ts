/**
 * A JSON-RPC error as a real Solana node returns it: a numeric code, a message and
 * optional data (for a failed preflight: the simulation result with its logs).
 */
export class RpcError extends Error {
  override readonly name = "RpcError";

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static invalidParams(message: string): RpcError {
    return new RpcError(-32602, message);
  }

  static methodNotFound(): RpcError {
    return new RpcError(-32601, "Method not found");
  }

  static invalidRequest(): RpcError {
    return new RpcError(-32600, "Invalid request");
  }

  static parseError(): RpcError {
    return new RpcError(-32700, "Parse error");
  }

  static blockNotAvailable(slot: number): RpcError {
    return new RpcError(-32004, `Block not available for slot ${slot}`);
  }

  static minContextSlotNotReached(contextSlot: number): RpcError {
    return new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot });
  }

  toJson(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}
