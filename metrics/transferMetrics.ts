import { Gauge } from "prom-client";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { transfersOutByState } from "../db/transfersOutByState.ts";
import { registry } from "./registry.ts";
import { exportsSharedGauges } from "./sharedGaugeLease.ts";

type Source = { config: Config; db: Db };
let source: Source | null = null;

const labelNames = ["network", "kind"] as const;

/** Rows read once per scrape, shared by the three gauges below. */
let pending: Promise<Awaited<ReturnType<typeof transfersOutByState>>> | null = null;
async function readOnce() {
  if (!source) return [];
  pending ??= transfersOutByState(source.db, (3 * source.config.transfers.replaceAfterMs) / 1000).finally(() => {
    queueMicrotask(() => (pending = null));
  });
  return pending;
}

/** Sets one gauge per (network, kind) from the rows; every network/kind pair seen before but now empty reads 0. */
function gauge(name: string, help: string, value: (row: Awaited<ReturnType<typeof transfersOutByState>>[number]) => number) {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      // Postgres unreachable: the series are absent from this scrape, the rest of the page still answers.
      // The rows are every worker's: one of them reports them (sharedGaugeLease.ts).
      const rows = (await exportsSharedGauges()) ? await readOnce().catch(() => []) : [];
      this.reset();
      const networkOf = (chainId: string) => source?.config.networks.find((n) => n.chainId === chainId)?.shortName ?? chainId;
      for (const row of rows) this.set({ network: networkOf(row.chainId), kind: row.kind }, value(row));
    },
  });
}

gauge("stablepay_transfers_out_in_flight", "Sweeps and refunds requested or broadcast, not yet final, per network and kind.", (r) => r.inFlight);
gauge(
  "stablepay_transfers_out_stuck",
  "Sweeps and refunds in flight for three TRANSFER_REPLACE_AFTER rounds since first sent, replacements or not (unsent: unchanged that long) (health's `stuck`), per network and kind.",
  (r) => r.stuck,
);
gauge("stablepay_transfers_out_oldest_seconds", "Seconds the oldest in-flight sweep or refund has waited since its last change, per network and kind.", (r) => r.oldestSeconds);

/** Reports sweeps and refunds in flight from this database (the worker does); the returned function stops it. */
export function watchTransfersOut(config: Config, db: Db): () => void {
  source = { config, db };
  return () => {
    if (source?.db === db) source = null;
  };
}
