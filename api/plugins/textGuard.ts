import { Elysia } from "elysia";
import { ValidationError } from "../../domain/errors.ts";

/**
 * Why Postgres could not store `s`, if it could not: text cannot hold a NUL character, and
 * jsonb refuses a lone UTF-16 surrogate (a JSON `\ud83d` without its pair: an emoji cut
 * in half at a fixed length), which JSON.parse keeps and JSON.stringify writes back.
 */
function unstorable(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character";
  if (!s.isWellFormed()) return "contains a lone UTF-16 surrogate (half of a character)";
  return null;
}

/** The path of the first key or string no column can store, and why. */
function findUnstorable(value: unknown, path: string): { path: string; reason: string } | null {
  if (typeof value === "string") {
    const reason = unstorable(value);
    return reason ? { path, reason } : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      const found = findUnstorable(key, at) ?? findUnstorable(v, at);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Refuses text no column can hold before any handler runs, so a stray NUL byte or half a
 * character is a 400 naming the field instead of a database error.
 */
export const textGuardPlugin = () =>
  new Elysia({ name: "text-guard" }).onBeforeHandle({ as: "global" }, ({ body, request }) => {
    const found = findUnstorable(body, "");
    if (found !== null) throw new ValidationError(found.path, `Invalid field '${found.path}': ${found.reason}`);
    // The query as the handlers read it (URLSearchParams decodes `%00` next to a malformed
    // escape, which Elysia's parsed query leaves encoded), keys and values.
    for (const [key, value] of new URL(request.url).searchParams) {
      const reason = unstorable(key) ?? unstorable(value);
      if (reason !== null) throw new ValidationError(key, `Invalid query parameter '${key}': ${reason}`);
    }
  });
