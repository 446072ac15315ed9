import pino from "pino";

/**
 * Structured JSON logs. Credential headers and secrets are redacted by path, so a
 * logged request or config never carries them in plain text.
 */
export function createLogger(options: { level?: string; name?: string; stderr?: boolean } = {}) {
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
  };
  // A command's output is on stdout: its logs go to stderr, beside it rather than into it.
  return options.stderr ? pino(settings, pino.destination(2)) : pino(settings);
}

export type Logger = ReturnType<typeof createLogger>;
