import { Counter, Gauge } from "prom-client";
import type { FoundBy } from "./recordCredits.ts";
import { registry } from "../../../metrics/registry.ts";

/**
 * What the `solana` role's subscriber does: the credits it records and how it found them
 * (a websocket notification, a Helius webhook, the poll; the poll finding what the others
 * should have is the sign of a degraded websocket), the accounts it watches, and its
 * websocket subscriptions.
 */
const credits = new Counter({
  name: "stablepay_solana_credits_total",
  help: "Solana credits recorded by the subscriber, by what found them first (websocket, webhook, poll).",
  labelNames: ["network", "found_by"] as const,
  registers: [registry],
});

type Reading = () => { watched: number; subscriptions: number; held: number };
/** The running subscribers, by network (the newest counts if a process runs two): read at each scrape. */
const subscribers = new Map<string, Reading[]>();

function subscriberGauge(name: string, help: string, value: (s: ReturnType<Reading>) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ["network"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [network, reads] of subscribers) if (reads.length > 0) this.set({ network }, value(reads.at(-1)!()));
    },
  });
}

subscriberGauge("stablepay_solana_watched_accounts", "Accounts the Solana subscriber watches (deposit token accounts, Solana Pay references).", (s) => s.watched);
subscriberGauge(
  "stablepay_solana_websocket_subscriptions",
  "Live account subscriptions on the Solana node's websocket (0 while it is down: the poll alone finds credits).",
  (s) => s.subscriptions,
);

subscriberGauge(
  "stablepay_solana_payments_held",
  "Accounts of open (or just closed) payments the last poll could not read through: each one's expiry is held, the chain's other payments are not.",
  (s) => s.held,
);

export const countSolanaCredits = (network: string, foundBy: FoundBy, n: number) => {
  if (n > 0) credits.inc({ network, found_by: foundBy }, n);
};

/** Reports a running subscriber's watched accounts and subscriptions; the returned function stops it. */
export function watchSolanaSubscriber(network: string, read: Reading): () => void {
  subscribers.set(network, [...(subscribers.get(network) ?? []), read]);
  return () => void subscribers.set(network, (subscribers.get(network) ?? []).filter((r) => r !== read));
}
