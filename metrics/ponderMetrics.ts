/**
 * Ponder's own metrics (`ponder_*`: sync progress, RPC requests, indexing durations) from
 * its HTTP server, to be served beside ours by the indexer role. Only `ponder_` families
 * are kept: its process metrics would repeat the wrapper's under the same names.
 */
export async function fetchPonderMetrics(port: number, timeoutMs = 2_000): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) return "";
  return keepPonderFamilies(await response.text());
}

/** The lines of an exposition text that belong to `ponder_*` families (HELP, TYPE and samples). */
export function keepPonderFamilies(text: string): string {
  return text
    .split("\n")
    .filter((line) => {
      const name = line.startsWith("# HELP ") || line.startsWith("# TYPE ") ? line.split(" ")[2] : line.startsWith("#") ? undefined : line;
      return name?.startsWith("ponder_") === true;
    })
    .join("\n");
}
