import { AsyncLocalStorage } from "node:async_hooks";

/** Fields every log line written while handling one request or job carries (`requestId`, `paymentIds`, …). */
export type LogContext = Record<string, unknown>;

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `fn` with `fields` added to every log line it (and whatever it awaits) writes. */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...fields }, fn);
}

/**
 * Adds `fields` to the log lines of the rest of the current asynchronous chain (an HTTP
 * request from its first hook on); prefer `withLogContext` where the work is one call.
 */
export function enterLogContext(fields: LogContext): void {
  storage.enterWith({ ...storage.getStore(), ...fields });
}

/** The fields of the current request or job; empty outside one. */
export const currentLogContext = (): LogContext => storage.getStore() ?? {};
