import { ValidationError } from "../../domain/errors.ts";
import { MAX_RETURN_ORIGINS, parseOrigin } from "../../domain/returnOrigin.ts";

/** The `origins` of `PUT /return-origins` (and the CLI's `--origins`): a list of http(s) origins, deduplicated; 400 naming the entry. */
export function parseReturnOrigins(value: unknown): string[] {
  if (!Array.isArray(value)) throw new ValidationError("origins", "Invalid field 'origins': expected an array of origins, e.g. [\"https://shop.example\"]");
  if (value.length > MAX_RETURN_ORIGINS) throw new ValidationError("origins", `Invalid field 'origins': at most ${MAX_RETURN_ORIGINS} origins`);
  const origins = new Set<string>();
  value.forEach((entry, i) => {
    const field = `origins[${i}]`;
    if (typeof entry !== "string" || entry.length > 2048) throw new ValidationError(field, `Invalid field '${field}': expected a string of at most 2048 characters`);
    const parsed = parseOrigin(entry.trim());
    if ("reason" in parsed) throw new ValidationError(field, `Invalid field '${field}': ${parsed.reason}`);
    origins.add(parsed.origin);
  });
  return [...origins].sort();
}
