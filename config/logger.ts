import pino from "pino";

/**
 * Structured JSON logs. Credential headers and secrets are redacted by path, so a
 * logged request or config never carries them in plain text.
 */
export function createLogger(options: { level?: string; name?: string } = {}) {
  return pino({
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
  });
}

export type Logger = ReturnType<typeof createLogger>;
