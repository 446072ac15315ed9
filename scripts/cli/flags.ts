/** A mistake in what the operator typed: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command was understood but could not be done now (a node, a key, a rate source): printed as one line, exit code 1. */
export class CommandFailedError extends Error {
  override name = "CommandFailedError";
}

export type Flags = Record<string, string | boolean | undefined>;

/** A flag's value, trimmed; a UsageError naming it when it is missing. */
export const required = (flags: Flags, name: string): string => {
  const value = flags[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value.trim();
};
