import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { openStalls } from "../../db/ingestWatch.ts";
import type { ChainStatusService } from "../../rails/chainStatus.ts";
import { chainState } from "./chainState.ts";

/** How old the answer may get before a caller prompts a new read (which it does not wait for). */
const REFRESH_MS = 5_000;

export type NetworkDelays = {
  /** Chain ids whose state `/payments/health` names lagging or down, as last read. */
  delayedChains(): Promise<ReadonlySet<string>>;
};

/**
 * Which chains the checkout page calls "network delayed": those `/payments/health` names
 * lagging or down (`chainState`). Every checkout view asks, with no credentials, so a view
 * never waits on a node: one read of the chain statuses runs at a time, at most every
 * `refreshMs`, and callers get the last answer at once (only the process's first caller
 * waits for one). A read that fails keeps the last answer.
 */
export function createNetworkDelays(deps: { config: Config; db: Db; chainStatus: ChainStatusService }, options: { refreshMs?: number } = {}): NetworkDelays {
  const refreshMs = options.refreshMs ?? REFRESH_MS;
  const maxLag = BigInt(deps.config.indexer.maxLagBlocks);
  let last: { at: number; delayed: ReadonlySet<string> } | null = null;
  let reading: Promise<ReadonlySet<string>> | null = null;

  async function read(): Promise<ReadonlySet<string>> {
    const [chains, stalls] = await Promise.all([deps.chainStatus.statuses(deps.config.networks.filter((n) => n.enabled)), openStalls(deps.db)]);
    return new Set(chains.filter((c) => chainState(c, maxLag, stalls.get(c.network.chainId)).state !== "ok").map((c) => c.network.chainId));
  }

  function refresh(): Promise<ReadonlySet<string>> {
    reading ??= read()
      .then((delayed) => {
        last = { at: Date.now(), delayed };
        return delayed;
      })
      .catch(() => last?.delayed ?? new Set<string>())
      .finally(() => {
        reading = null;
      });
    return reading;
  }

  return {
    async delayedChains() {
      if (!last) return refresh();
      if (Date.now() - last.at >= refreshMs) void refresh();
      return last.delayed;
    },
  };
}
