/**
 * Serializes a response. Real nodes write u64 values as JSON numbers; a bigint that
 * reaches here is written the same way rather than failing the response.
 */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item) => (typeof item === "bigint" ? Number(item) : item));
}
