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

/**
 * The `ponder_*` metrics of every chain's Ponder (one per EVM chain, on consecutive ports),
 * as one exposition: each family's HELP and TYPE once, then its samples from every Ponder,
 * each labelled `indexer_chain_id` (a Ponder's metrics without a chain label would otherwise
 * repeat one series). A Ponder that does not answer (restarting) is left out.
 */
export async function fetchAllPonderMetrics(ponders: ReadonlyArray<{ chainId: string; port: number }>, timeoutMs = 2_000): Promise<string> {
  const texts = await Promise.all(ponders.map(async (p) => ({ chainId: p.chainId, text: await fetchPonderMetrics(p.port, timeoutMs).catch(() => "") })));
  return mergePonderMetrics(texts);
}

/** Merges per-chain exposition texts (see `fetchAllPonderMetrics`). */
export function mergePonderMetrics(texts: ReadonlyArray<{ chainId: string; text: string }>): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>();
  const family = (name: string) => families.get(name) ?? families.set(name, { meta: [], samples: [] }).get(name)!;
  for (const { chainId, text } of texts) {
    let current: string | undefined;
    for (const line of text.split("\n")) {
      if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        current = line.split(" ")[2]!;
        const f = family(current);
        if (!f.meta.some((m) => m.slice(0, 7) === line.slice(0, 7))) f.meta.push(line);
      } else if (line && !line.startsWith("#")) {
        const label = `indexer_chain_id="${chainId}"`;
        const brace = line.indexOf("{");
        const space = line.indexOf(" ");
        const labelled = brace !== -1 && brace < space ? `${line.slice(0, brace + 1)}${label},${line.slice(brace + 1)}` : `${line.slice(0, space)}{${label}}${line.slice(space)}`;
        family(current ?? line.slice(0, brace !== -1 && brace < space ? brace : space)).samples.push(labelled);
      }
    }
  }
  return [...families.values()].flatMap((f) => [...f.meta, ...f.samples]).join("\n");
}
