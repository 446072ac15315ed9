/**
 * An RPC URL as it may be shown: scheme and host only. Providers put API keys in the path
 * or query (`https://x.g.alchemy.com/v2/<key>`), so neither is ever printed.
 */
export function redactUrl(value: string): string {
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
  } catch {
    return "[invalid url]";
  }
}

/** An error's message with every URL in it cut to scheme and host (client errors quote the URL they called). */
export function redactMessage(message: string): string {
  return message.replace(/\b(?:https?|wss?):\/\/[^\s"'<>,)]+/g, (url) => redactUrl(url)).slice(0, 200);
}
