import pino from "pino";
import { currentLogContext } from "./logContext.ts";
import { lineBatchedDestination } from "./logDestination.ts";

/**
 * Structured JSON logs. Credential headers and secrets are redacted by path, so a
 * logged request or config never carries them in plain text. Every line written while
 * handling a request or a job carries that request's id or the job's payment ids
 * (`config/logContext.ts`), without each caller passing them along.
 */
export function createLogger(options: { level?: string; name?: string; stderr?: boolean; destination?: pino.DestinationStream } = {}) {
  const settings: pino.LoggerOptions = {
    name: options.name ?? "stablepay",
    level: options.level ?? "info",
    redact: {
      paths: [
        "*.apiSecret",
        "*.secret",
        "*.privateKey",
        "*.headers['x-api-secret']",
        "*.headers['x-api-key']",
        "req.headers.authorization",
      ],
      censor: "[redacted]",
    },
    mixin: currentLogContext,
  };
  // A command's output is on stdout: its logs go to stderr, beside it rather than into it.
  if (options.destination) return pino(settings, options.destination);
  return pino(settings, lineBatchedDestination(options.stderr ? 2 : 1));
}

export type Logger = ReturnType<typeof createLogger>;
