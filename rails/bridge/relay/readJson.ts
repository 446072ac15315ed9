/** Small readers for Relay's JSON: every field is optional in its OpenAPI schema, so nothing is assumed. */

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const stringField = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** An amount Relay sends as a decimal string of smallest units ("30754920"); a minus sign is allowed (negative fees are rewards). */
export function unitsField(value: unknown): bigint | undefined {
  return typeof value === "string" && /^-?\d{1,78}$/.test(value) ? BigInt(value) : undefined;
}

/** Strings of an array field, skipping anything else. */
export const stringsField = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
