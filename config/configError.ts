/** A configuration the service cannot start with; its message names the variable at fault. */
export class ConfigError extends Error {
  override name = "ConfigError";
}
