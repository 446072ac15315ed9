import { ValidationError } from "../../domain/errors.ts";

/** Agent ids: 1 to 200 visible ASCII characters (what a header can carry unchanged). */
const AGENT_ID = /^[\x21-\x7e]{1,200}$/;

/**
 * The agent id a path names, exactly as given (no trimming: ` bot` is not `bot`), or null
 * when it cannot be an agent's (nothing can be stored under it: no policy exists for it).
 */
export const agentIdOfPath = (value: unknown): string | null => (typeof value === "string" && AGENT_ID.test(value) ? value : null);

/** An agent id from a body field or the `X-Agent-Id` header, trimmed; the 400 names which. */
export function parseAgentId(field: string, value: unknown): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (!AGENT_ID.test(text)) {
    throw new ValidationError(field, `Invalid ${field === "X-Agent-Id" ? "header" : "field"} '${field}': 1 to 200 visible ASCII characters, no spaces`);
  }
  return text;
}
