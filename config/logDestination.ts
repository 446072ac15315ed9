import pino from "pino";

/** Lines held before a write even when the turn has not ended (a loop that logs thousands of lines at once). */
const MAX_PENDING_LINES = 512;

type LineBatchedDestination = { write(line: string): void; flushSync(): void };

const byFd = new Map<number, LineBatchedDestination>();

/**
 * Standard output or error for the logs, one write per turn of the event loop: the lines
 * logged during a turn go out together when it ends (sonic-boom, synchronous), instead of
 * one `write(2)` per line. Under load the per-line write was the largest part of a status
 * read's CPU after the handler itself (~2 µs of ~14 µs in-process). A line is out by the end
 * of the turn that logged it; the lines of the last turn are written on `exit` (including
 * after an uncaught exception); a SIGKILL can lose at most that one turn's lines.
 * One per file descriptor and process, shared by every logger, so lines keep their order.
 */
export function lineBatchedDestination(fd: 1 | 2): LineBatchedDestination {
  const existing = byFd.get(fd);
  if (existing) return existing;
  const out = pino.destination({ dest: fd, sync: true });
  let pending: string[] = [];
  const flushSync = () => {
    if (pending.length === 0) return;
    const lines = pending.join("");
    pending = [];
    out.write(lines);
  };
  process.once("exit", flushSync);
  const destination = {
    write(line: string) {
      const count = pending.push(line);
      if (count === 1) setImmediate(flushSync);
      else if (count >= MAX_PENDING_LINES) flushSync();
    },
    flushSync,
  };
  byFd.set(fd, destination);
  return destination;
}
