import { Elysia } from "elysia";
import { ValidationError } from "../../domain/errors.ts";

/** The path of the first string holding a NUL character, which Postgres text cannot store. */
function findNul(value: unknown, path: string): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      const found = findNul(key, path ? `${path}.${key}` : key) ?? findNul(v, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Refuses text no column can hold before any handler runs, so a stray NUL byte is a
 * 400 naming the field instead of a database error.
 */
export const textGuardPlugin = () =>
  new Elysia({ name: "text-guard" }).onBeforeHandle({ as: "global" }, ({ body, query }) => {
    const field = findNul(body, "") ?? findNul(query, "");
    if (field !== null) throw new ValidationError(field, `Invalid field '${field}': contains a NUL character`);
  });
